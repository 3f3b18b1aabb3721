// The vectors are knftables' own expectations (sigs.k8s.io/knftables v0.0.18, objects_test.go
// TestObjects: table `mytable` of family `ip`), for every field this model has.
import { describe, expect, it } from 'vitest';
import { checkOperation, parsePriority, printOperation, printTransaction } from './print.js';
import type { NftObject, NftOperation, NftVerb } from './types.js';

const op = (verb: NftVerb, object: NftObject): NftOperation => ({ verb, object });
const line = (verb: NftVerb, object: NftObject): string => printOperation(op(verb, object), 'ip', 'mytable');
const refusal = (verb: NftVerb, object: NftObject): string | undefined => checkOperation(op(verb, object));

describe('printOperation writes each object as knftables writeOperation does', () => {
  it('tables', () => {
    expect(line('add', { kind: 'table', table: {} })).toBe('add table ip mytable');
    expect(line('add', { kind: 'table', table: { comment: 'foo' } })).toBe('add table ip mytable { comment "foo" ; }');
    expect(line('create', { kind: 'table', table: {} })).toBe('create table ip mytable');
    expect(line('flush', { kind: 'table', table: {} })).toBe('flush table ip mytable');
    expect(line('delete', { kind: 'table', table: {} })).toBe('delete table ip mytable');
    expect(refusal('insert', { kind: 'table', table: {} })).toContain('not implemented');
    expect(refusal('replace', { kind: 'table', table: {} })).toContain('not implemented');
  });

  it('chains, with named priorities written as numbers', () => {
    const base = { name: 'mychain', type: 'nat', hook: 'postrouting', priority: 'srcnat' };
    expect(line('add', { kind: 'chain', chain: { name: 'mychain' } })).toBe('add chain ip mytable mychain');
    expect(line('add', { kind: 'chain', chain: { name: 'mychain', comment: 'foo' } })).toBe('add chain ip mytable mychain { comment "foo" ; }');
    expect(line('add', { kind: 'chain', chain: base })).toBe('add chain ip mytable mychain { type nat hook postrouting priority 100 ; }');
    expect(line('add', { kind: 'chain', chain: { ...base, priority: 'srcnat+5' } })).toBe(
      'add chain ip mytable mychain { type nat hook postrouting priority 105 ; }',
    );
    expect(line('add', { kind: 'chain', chain: { ...base, priority: 'futurevalue' } })).toBe(
      'add chain ip mytable mychain { type nat hook postrouting priority futurevalue ; }',
    );
    expect(line('add', { kind: 'chain', chain: { ...base, comment: 'foo' } })).toBe(
      'add chain ip mytable mychain { type nat hook postrouting priority 100 ; comment "foo" ; }',
    );
    expect(line('create', { kind: 'chain', chain: { name: 'mychain' } })).toBe('create chain ip mytable mychain');
    expect(line('flush', { kind: 'chain', chain: { name: 'mychain' } })).toBe('flush chain ip mytable mychain');
    expect(line('delete', { kind: 'chain', chain: { name: 'mychain' } })).toBe('delete chain ip mytable mychain');
    // kube-proxy's own (proxier_test.go baseRules): dstnat-10 and dstnat+10.
    expect(line('add', { kind: 'chain', chain: { name: 'filter-output-post-dnat', type: 'filter', hook: 'output', priority: 'dstnat+10' } })).toBe(
      'add chain ip mytable filter-output-post-dnat { type filter hook output priority -90 ; }',
    );
  });

  it('refuses chains as knftables validate does', () => {
    expect(refusal('insert', { kind: 'chain', chain: { name: 'mychain' } })).toContain('not implemented');
    expect(refusal('replace', { kind: 'chain', chain: { name: 'mychain' } })).toContain('not implemented');
    expect(refusal('add', { kind: 'chain', chain: { name: '' } })).toContain('no name');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', hook: 'postrouting', priority: 'srcnat' } })).toContain('must specify Type and Priority');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', type: 'nat', hook: 'postrouting' } })).toContain('must specify Type and Priority');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', hook: 'postrouting' } })).toContain('must specify Type and Priority');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', type: 'nat', priority: 'srcnat' } })).toContain('must not specify Type or Priority');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', type: 'nat' } })).toContain('must not specify Type or Priority');
    expect(refusal('add', { kind: 'chain', chain: { name: 'mychain', priority: 'srcnat' } })).toBe('regular chain "mychain" must not specify Type or Priority');
  });

  it('rules', () => {
    expect(line('add', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toBe('add rule ip mytable mychain drop');
    expect(line('add', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', comment: 'comment' } })).toBe('add rule ip mytable mychain drop comment "comment"');
    expect(line('add', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', index: 2 } })).toBe('add rule ip mytable mychain index 2 drop');
    expect(line('add', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', handle: 2 } })).toBe('add rule ip mytable mychain handle 2 drop');
    expect(line('insert', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toBe('insert rule ip mytable mychain drop');
    expect(line('insert', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', comment: 'comment', handle: 2 } })).toBe(
      'insert rule ip mytable mychain handle 2 drop comment "comment"',
    );
    expect(line('replace', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', handle: 2 } })).toBe('replace rule ip mytable mychain handle 2 drop');
    expect(line('delete', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', handle: 2 } })).toBe('delete rule ip mytable mychain handle 2');
    expect(line('delete', { kind: 'rule', rule: { chain: 'mychain', rule: '', handle: 2 } })).toBe('delete rule ip mytable mychain handle 2');
  });

  it('refuses rules as knftables validate does', () => {
    expect(refusal('create', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toContain('not implemented');
    expect(refusal('flush', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toContain('not implemented');
    expect(refusal('add', { kind: 'rule', rule: { chain: '', rule: 'drop' } })).toContain('no chain name');
    expect(refusal('add', { kind: 'rule', rule: { chain: 'mychain', rule: '' } })).toContain('no rule');
    expect(refusal('add', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop', index: 2, handle: 5 } })).toContain('both Index and Handle');
    expect(refusal('replace', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toContain('must specify Handle');
    expect(refusal('delete', { kind: 'rule', rule: { chain: 'mychain', rule: 'drop' } })).toContain('must specify Handle');
  });

  it('sets', () => {
    expect(line('add', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr' } })).toBe('add set ip mytable myset { type ipv4_addr ; }');
    expect(line('add', { kind: 'set', set: { name: 'myset', typeOf: 'ip saddr' } })).toBe('add set ip mytable myset { typeof ip saddr ; }');
    expect(line('create', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr' } })).toBe('create set ip mytable myset { type ipv4_addr ; }');
    expect(line('flush', { kind: 'set', set: { name: 'myset' } })).toBe('flush set ip mytable myset');
    expect(line('flush', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr' } })).toBe('flush set ip mytable myset');
    expect(line('delete', { kind: 'set', set: { name: 'myset' } })).toBe('delete set ip mytable myset');
    // The properties this model has, in knftables' order ("add set with all properties").
    expect(line('add', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr', flags: ['dynamic', 'interval'], timeout: '180s', comment: "that's a lot of options" } })).toBe(
      `add set ip mytable myset { type ipv4_addr ; flags dynamic,interval ; timeout 180s ; comment "that's a lot of options" ; }`,
    );
    expect(refusal('insert', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr' } })).toContain('not implemented');
    expect(refusal('replace', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr' } })).toContain('not implemented');
    expect(refusal('add', { kind: 'set', set: { name: '', type: 'ipv4_addr' } })).toContain('no name');
    expect(refusal('add', { kind: 'set', set: { name: 'myset' } })).toContain('must specify either Type or TypeOf');
    expect(refusal('add', { kind: 'set', set: { name: 'myset', type: 'ipv4_addr', typeOf: 'ip addr' } })).toContain('must specify either Type or TypeOf');
  });

  it('maps', () => {
    expect(line('add', { kind: 'map', set: { name: 'mymap', type: 'ipv4_addr : ipv4_addr' } })).toBe('add map ip mytable mymap { type ipv4_addr : ipv4_addr ; }');
    expect(line('add', { kind: 'map', set: { name: 'mymap', typeOf: 'ip saddr : ip saddr' } })).toBe('add map ip mytable mymap { typeof ip saddr : ip saddr ; }');
    expect(line('create', { kind: 'map', set: { name: 'mymap', type: 'ipv4_addr : ipv4_addr' } })).toBe('create map ip mytable mymap { type ipv4_addr : ipv4_addr ; }');
    expect(line('flush', { kind: 'map', set: { name: 'mymap', type: 'ipv4_addr : ipv4_addr' } })).toBe('flush map ip mytable mymap');
    expect(line('delete', { kind: 'map', set: { name: 'mymap' } })).toBe('delete map ip mytable mymap');
    expect(line('add', { kind: 'map', set: { name: 'mymap', type: 'ipv4_addr : ipv4_addr', flags: ['dynamic', 'interval'], timeout: '180s', comment: "that's a lot of options" } })).toBe(
      `add map ip mytable mymap { type ipv4_addr : ipv4_addr ; flags dynamic,interval ; timeout 180s ; comment "that's a lot of options" ; }`,
    );
    expect(refusal('insert', { kind: 'map', set: { name: 'mymap', type: 'ipv4_addr : ipv4_addr' } })).toContain('not implemented');
    expect(refusal('add', { kind: 'map', set: { name: '', type: 'ipv4_addr : ipv4_addr' } })).toContain('no name');
    expect(refusal('add', { kind: 'map', set: { name: 'mymap' } })).toContain('must specify either Type or TypeOf');
  });

  it('elements', () => {
    expect(line('add', { kind: 'element', of: 'set', element: { set: 'myset', key: ['10.0.0.1'] } })).toBe('add element ip mytable myset { 10.0.0.1 }');
    expect(line('add', { kind: 'element', of: 'map', element: { set: 'mymap', key: ['10.0.0.1'], value: ['192.168.1.1'] } })).toBe(
      'add element ip mytable mymap { 10.0.0.1 : 192.168.1.1 }',
    );
    expect(line('create', { kind: 'element', of: 'set', element: { set: 'myset', key: ['10.0.0.1'], comment: 'comment' } })).toBe(
      'create element ip mytable myset { 10.0.0.1 comment "comment" }',
    );
    expect(line('add', { kind: 'element', of: 'map', element: { set: 'mymap', key: ['10.0.0.1'], value: ['192.168.1.1'], comment: 'comment' } })).toBe(
      'add element ip mytable mymap { 10.0.0.1 comment "comment" : 192.168.1.1 }',
    );
    expect(line('delete', { kind: 'element', of: 'set', element: { set: 'myset', key: ['10.0.0.1'] } })).toBe('delete element ip mytable myset { 10.0.0.1 }');
    expect(line('delete', { kind: 'element', of: 'map', element: { set: 'mymap', key: ['10.0.0.1'], value: ['192.168.1.1'] } })).toBe(
      'delete element ip mytable mymap { 10.0.0.1 }',
    );
    expect(refusal('add', { kind: 'element', of: 'set', element: { set: '', key: ['10.0.0.1'] } })).toContain('no set/map name');
    expect(refusal('add', { kind: 'element', of: 'set', element: { set: 'myset', key: [] } })).toContain('no key');
    expect(refusal('add', { kind: 'element', of: 'set', element: { set: 'myset', key: ['10.0.0.1'], value: ['80'] } })).toContain('map value specified for set element');
    expect(refusal('add', { kind: 'element', of: 'map', element: { set: 'mymap', key: ['10.0.0.1'] } })).toContain('no map value specified');
  });

  it("writes kube-proxy's concatenated keys and verdicts (proxier_test.go TestOverallNFTablesRules)", () => {
    expect(
      printOperation(
        op('add', { kind: 'element', of: 'map', element: { set: 'no-endpoint-services', key: ['1.2.3.4', 'tcp', '80'], value: ['drop'], comment: 'ns2/svc2:p80' } }),
        'ip',
        'kube-proxy',
      ),
    ).toBe('add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns2/svc2:p80" : drop }');
    expect(
      printOperation(
        op('add', { kind: 'set', set: { name: 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80', type: 'ipv4_addr', flags: ['dynamic', 'timeout'], timeout: '10800s' } }),
        'ip',
        'kube-proxy',
      ),
    ).toBe('add set ip kube-proxy affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }');
  });
});

describe('parsePriority is knftables ParsePriority for the ip and ip6 families', () => {
  it('reads numbers, names and names with an offset', () => {
    expect(parsePriority('-110')).toBe(-110);
    expect(parsePriority('+5')).toBe(5);
    expect(parsePriority('dstnat-10')).toBe(-110);
    expect(parsePriority('dstnat')).toBe(-100);
    expect(parsePriority('raw')).toBe(-300);
    expect(parsePriority('mangle')).toBe(-150);
    expect(parsePriority('filter')).toBe(0);
    expect(parsePriority('security')).toBe(50);
    expect(parsePriority('futurevalue')).toBeUndefined();
    expect(parsePriority('srcnat+x')).toBeUndefined();
    expect(parsePriority('toString')).toBeUndefined();
  });
});

describe('printTransaction is knftables Transaction.String', () => {
  it('writes one line per operation, each with its newline', () => {
    const result = printTransaction({
      family: 'ip6',
      table: 'kube-proxy',
      operations: [
        op('add', { kind: 'table', table: { comment: 'rules for kube-proxy' } }),
        op('add', { kind: 'chain', chain: { name: 'services' } }),
        op('flush', { kind: 'chain', chain: { name: 'services' } }),
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: 'add table ip6 kube-proxy { comment "rules for kube-proxy" ; }\nadd chain ip6 kube-proxy services\nflush chain ip6 kube-proxy services\n',
    });
  });

  it('refuses the whole transaction when an operation is invalid, naming it', () => {
    const result = printTransaction({
      family: 'ip',
      table: 'kube-proxy',
      operations: [op('add', { kind: 'chain', chain: { name: 'a' } }), op('delete', { kind: 'rule', rule: { chain: 'a', rule: 'drop' } })],
    });
    expect(result).toEqual({ ok: false, error: { _tag: 'ErrNftPrint', message: 'must specify Handle with delete', operation: 1 } });
  });

  it('quotes comments as Go %q does', () => {
    expect(line('add', { kind: 'rule', rule: { chain: 'c', rule: 'drop', comment: 'a "b"\n' } })).toBe('add rule ip mytable c drop comment "a \\"b\\"\\n"');
  });
});
