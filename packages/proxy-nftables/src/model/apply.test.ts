import { describe, expect, it } from 'vitest';
import { applyTransaction, type ErrNftApply } from './apply.js';
import { dumpTransaction } from './dump.js';
import type { NftObject, NftOperation, NftTable, NftTransaction, NftVerb } from './types.js';

const op = (verb: NftVerb, object: NftObject): NftOperation => ({ verb, object });
const tx = (...operations: NftOperation[]): NftTransaction => ({ family: 'ip', table: 'kube-proxy', operations });
const table = (): NftOperation => op('add', { kind: 'table', table: { comment: 'rules for kube-proxy' } });
const chain = (name: string): NftObject => ({ kind: 'chain', chain: { name } });
const rule = (chainName: string, text: string, at: { index?: number; handle?: number } = {}): NftObject => ({
  kind: 'rule',
  rule: { chain: chainName, rule: text, ...at },
});
const element = (set: string, key: string[], value?: string[]): NftObject => ({
  kind: 'element',
  of: value === undefined ? 'set' : 'map',
  element: { set, key, ...(value === undefined ? {} : { value }) },
});

function applied(before: NftTable | undefined, ...operations: NftOperation[]): NftTable {
  const result = applyTransaction(before, tx(...operations));
  if (!result.ok) throw new Error(result.error.message);
  if (result.value === undefined) throw new Error('the table is gone');
  return result.value;
}

function refused(before: NftTable | undefined, ...operations: NftOperation[]): ErrNftApply {
  const result = applyTransaction(before, tx(...operations));
  if (result.ok) throw new Error('applied, but the kernel refuses this transaction');
  return result.error;
}

const rulesOf = (t: NftTable, name: string): string[] => (t.chains.get(name)?.rules ?? []).map((r) => r.rule);

describe('applyTransaction: what nft -f does to a table', () => {
  const base = applied(
    undefined,
    table(),
    op('add', chain('services')),
    op('add', chain('endpoint-A')),
    op('add', rule('endpoint-A', 'meta l4proto tcp dnat to 10.180.0.1:80')),
    op('add', { kind: 'set', set: { name: 'cluster-ips', type: 'ipv4_addr', comment: 'Active ClusterIPs' } }),
    op('add', { kind: 'map', set: { name: 'service-ips', type: 'ipv4_addr . inet_proto . inet_service : verdict' } }),
    op('add', element('cluster-ips', ['172.30.0.41'])),
    op('add', element('service-ips', ['172.30.0.41', 'tcp', '80'], ['goto', 'service-X'])),
  );

  it('an add of what exists changes nothing; a create of it is EEXIST and applies nothing', () => {
    const again = applied(base, table(), op('add', chain('endpoint-A')), op('add', element('cluster-ips', ['172.30.0.41'])));
    expect(rulesOf(again, 'endpoint-A')).toEqual(['meta l4proto tcp dnat to 10.180.0.1:80']);
    expect([...(again.sets.get('cluster-ips')?.elements.keys() ?? [])]).toEqual(['172.30.0.41']);
    const e = refused(base, op('add', chain('new')), op('create', chain('endpoint-A')));
    expect(e).toEqual({ _tag: 'ErrNftApply', message: 'create chain ip kube-proxy endpoint-A: File exists', operation: 1, errno: 'EEXIST' });
  });

  it("kube-proxy's add + flush of a chain replaces its rules", () => {
    const next = applied(base, op('add', chain('endpoint-A')), op('flush', chain('endpoint-A')), op('add', rule('endpoint-A', 'meta l4proto tcp dnat to 10.180.0.2:80')));
    expect(rulesOf(next, 'endpoint-A')).toEqual(['meta l4proto tcp dnat to 10.180.0.2:80']);
  });

  it('a deleted chain takes its rules with it, and a new chain of its name starts empty', () => {
    const next = applied(base, op('delete', chain('endpoint-A')));
    expect(next.chains.has('endpoint-A')).toBe(false);
    const again = applied(next, op('add', chain('endpoint-A')));
    expect(rulesOf(again, 'endpoint-A')).toEqual([]);
  });

  it('delete of a missing object is ENOENT, destroy of one is not an error', () => {
    expect(refused(base, op('delete', chain('nope')))).toMatchObject({ message: 'delete chain ip kube-proxy nope: No such file or directory', errno: 'ENOENT' });
    expect(refused(base, op('delete', element('cluster-ips', ['10.0.0.1']))).message).toBe(
      'delete element ip kube-proxy cluster-ips { 10.0.0.1 }: No such file or directory',
    );
    expect(refused(base, op('add', rule('nope', 'drop'))).errno).toBe('ENOENT');
    const next = applied(base, op('destroy', chain('nope')), op('destroy', element('cluster-ips', ['10.0.0.1'])));
    expect([...next.chains.keys()]).toEqual([...base.chains.keys()]);
  });

  it('a map element under a key the map holds with another value is EEXIST; delete then add changes it', () => {
    expect(refused(base, op('add', element('service-ips', ['172.30.0.41', 'tcp', '80'], ['goto', 'service-Y']))).errno).toBe('EEXIST');
    const same = applied(base, op('add', element('service-ips', ['172.30.0.41', 'tcp', '80'], ['goto', 'service-X'])));
    expect(same.sets.get('service-ips')?.elements.size).toBe(1);
    const changed = applied(
      base,
      op('delete', element('service-ips', ['172.30.0.41', 'tcp', '80'], ['goto', 'service-X'])),
      op('add', element('service-ips', ['172.30.0.41', 'tcp', '80'], ['goto', 'service-Y'])),
    );
    expect(changed.sets.get('service-ips')?.elements.get('172.30.0.41 . tcp . 80')?.value).toEqual(['goto', 'service-Y']);
  });

  it('a refused transaction applies nothing, and an applied one leaves the old table as it was', () => {
    const e = refused(base, op('flush', chain('endpoint-A')), op('add', element('cluster-ips', ['10.0.0.9'])), op('delete', chain('nope')));
    expect(e.operation).toBe(2);
    const next = applied(base, op('flush', chain('endpoint-A')), op('add', element('cluster-ips', ['10.0.0.9'])), op('flush', { kind: 'map', set: { name: 'service-ips' } }));
    expect(rulesOf(next, 'endpoint-A')).toEqual([]);
    expect(next.sets.get('service-ips')?.elements.size).toBe(0);
    expect(rulesOf(base, 'endpoint-A')).toEqual(['meta l4proto tcp dnat to 10.180.0.1:80']);
    expect([...(base.sets.get('cluster-ips')?.elements.keys() ?? [])]).toEqual(['172.30.0.41']);
    expect(base.sets.get('service-ips')?.elements.size).toBe(1);
  });

  it('rules go where index and handle say: add after, insert before; replace and delete by handle', () => {
    let t = applied(base, op('add', chain('c')), op('add', rule('c', 'r1')), op('add', rule('c', 'r3')));
    t = applied(t, op('add', rule('c', 'r2', { index: 0 })), op('insert', rule('c', 'r0')));
    expect(rulesOf(t, 'c')).toEqual(['r0', 'r1', 'r2', 'r3']);
    const handle = (i: number): number => t.chains.get('c')?.rules[i]?.handle ?? -1;
    const r2 = handle(2);
    t = applied(t, op('insert', rule('c', 'r1.5', { handle: r2 })), op('replace', rule('c', 'R3', { handle: handle(3) })));
    expect(rulesOf(t, 'c')).toEqual(['r0', 'r1', 'r1.5', 'r2', 'R3']);
    t = applied(t, op('delete', rule('c', '', { handle: r2 })));
    expect(rulesOf(t, 'c')).toEqual(['r0', 'r1', 'r1.5', 'R3']);
    expect(refused(t, op('delete', rule('c', '', { handle: 9999 }))).errno).toBe('ENOENT');
    expect(refused(t, op('add', rule('c', 'x', { index: 4 }))).errno).toBe('ENOENT');
  });

  it('flush table empties every chain and keeps the sets and their elements', () => {
    const t = applied(base, op('flush', { kind: 'table', table: {} }));
    expect(rulesOf(t, 'endpoint-A')).toEqual([]);
    expect([...t.chains.keys()]).toEqual(['services', 'endpoint-A']);
    expect(t.sets.get('cluster-ips')?.elements.size).toBe(1);
  });

  it('nothing but add/create table works before the table exists; delete table removes it', () => {
    expect(refused(undefined, op('add', chain('services'))).errno).toBe('ENOENT');
    const gone = applyTransaction(base, tx(op('delete', { kind: 'table', table: {} })));
    expect(gone).toEqual({ ok: true, value: undefined });
    expect(applyTransaction(undefined, tx(op('destroy', { kind: 'table', table: {} })))).toEqual({ ok: true, value: undefined });
  });

  it('a transaction for another table is refused', () => {
    const other = applyTransaction(base, { family: 'ip6', table: 'kube-proxy', operations: [] });
    expect(other.ok).toBe(false);
  });
});

describe("dumpTransaction: knftables fake's Dump order", () => {
  it('the table, chains by name with their rules, then sets by name, then maps by name, elements as added', () => {
    const t = applied(
      undefined,
      table(),
      op('add', { kind: 'map', set: { name: 'a-map', type: 'ipv4_addr : verdict' } }),
      op('add', { kind: 'set', set: { name: 'z-set', type: 'ipv4_addr' } }),
      op('add', chain('services')),
      op('add', chain('endpoint-B')),
      op('add', rule('services', 'ip daddr @z-set drop')),
      op('add', element('z-set', ['10.0.0.2'])),
      op('add', element('z-set', ['10.0.0.1'])),
      op('add', element('a-map', ['10.0.0.1'], ['goto', 'endpoint-B'])),
    );
    const summary = dumpTransaction(t).operations.map(({ object }) =>
      object.kind === 'table'
        ? 'table'
        : object.kind === 'chain'
          ? `chain ${object.chain.name}`
          : object.kind === 'rule'
            ? `rule ${object.rule.chain} ${object.rule.rule}`
            : object.kind === 'element'
              ? `element ${object.element.set} ${object.element.key.join(' . ')}`
              : `${object.kind} ${object.set.name}`,
    );
    expect(summary).toEqual([
      'table',
      'chain endpoint-B',
      'chain services',
      'rule services ip daddr @z-set drop',
      'set z-set',
      'element z-set 10.0.0.2',
      'element z-set 10.0.0.1',
      'map a-map',
      'element a-map 10.0.0.1',
    ]);
  });
});
