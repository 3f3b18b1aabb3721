// The iptables-restore table model on hand-written cases. The expected tables are what
// iptables-nft-restore 1.8.9 (and, where noted, iptables-legacy-restore) left in a fresh
// network namespace for the same input, printed by iptables-nft-save; apply-restore.real.test.ts
// re-checks sequences of this kind against the installed binaries.
import { describe, expect, it } from 'vitest';
import { applyRestore } from './apply-restore.js';
import { createRuleCache } from '../save/rule-cache.js';
import { emptyTables, printTables, tablesEqual, type TableState } from './table-state.js';

const FILTER_ABC = ['*filter', ':INPUT DROP [0:0]', ':A - [0:0]', ':B - [0:0]', '-A A -j B', '-A B -j ACCEPT', '-A INPUT -j A', 'COMMIT', '*nat', ':N - [0:0]', '-A N -j RETURN', 'COMMIT', ''].join('\n');

const NAT_N = ['*nat', ':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]', ':N - [0:0]', '-A N -j RETURN', 'COMMIT'];

function applied(state: TableState, text: string, noflush = true): TableState {
  const result = applyRestore(state, text, { noflush });
  if (!result.ok) throw new Error(`line ${result.error.line}: ${result.error.message}`);
  return result.value;
}

const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('');

describe('applyRestore', () => {
  const base = applied(emptyTables(4), FILTER_ABC, false);

  it('loads into empty tables as iptables-restore does', () => {
    expect(printTables(base)).toBe(
      lines('*filter', ':INPUT DROP [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':A - [0:0]', ':B - [0:0]', '-A INPUT -j A', '-A A -j B', '-A B -j ACCEPT', 'COMMIT', ...NAT_N),
    );
  });

  it('--noflush: a chain declaration flushes an existing chain in place, and -X deletes the unreferenced empty chain', () => {
    const next = applied(base, lines('*filter', ':A - [0:0]', ':B - [0:0]', '-X B', 'COMMIT'));
    expect(printTables(next)).toBe(
      lines('*filter', ':INPUT DROP [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':A - [0:0]', '-A INPUT -j A', 'COMMIT', ...NAT_N),
    );
    // The old value is untouched.
    expect(printTables(base)).toContain('-A A -j B');
  });

  it('--noflush: declaring a chain twice flushes it; a later rule lands in the emptied chain', () => {
    const next = applied(base, lines('*filter', ':INPUT ACCEPT [0:0]', ':E - [0:0]', '-A E -j ACCEPT', ':E - [0:0]', '-A E -j DROP', 'COMMIT'));
    expect(printTables(next)).toContain(':INPUT ACCEPT [0:0]');
    expect(printTables(next)).toContain('-A E -j DROP\n');
    expect(printTables(next)).not.toContain('-A E -j ACCEPT');
  });

  it('without --noflush a table in the input is flushed first (user chains gone, policies ACCEPT); other tables stay', () => {
    const next = applied(base, lines('*filter', ':Z - [0:0]', 'COMMIT'), false);
    expect(printTables(next)).toBe(lines('*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':Z - [0:0]', 'COMMIT', ...NAT_N));
    // iptables-nft deletes the table and creates it only for a block with statements.
    expect(printTables(applied(base, lines('*filter', 'COMMIT'), false))).toBe(lines(...NAT_N));
  });

  const failures: readonly (readonly [string, string, number, string])[] = [
    ['deleting a chain that has rules', lines('*filter', '-X B', 'COMMIT'), 2, 'CHAIN_DEL failed (Device or resource busy): chain B'],
    ['deleting an empty chain still jumped to', lines('*filter', ':B - [0:0]', '-X B', 'COMMIT'), 3, 'CHAIN_DEL failed (Device or resource busy): chain B'],
    ['deleting a chain that does not exist', lines('*filter', '-X NOPE', 'COMMIT'), 2, 'No chain/target/match by that name.'],
    ['deleting a built-in chain', lines('*filter', '-X INPUT', 'COMMIT'), 2, "Can't delete built-in chain `INPUT'"],
    ['appending to a chain that does not exist', lines('*nat', '-A NOPE -j RETURN', 'COMMIT'), 2, 'No chain/target/match by that name.'],
    ['jumping to a chain deleted earlier in the block', lines('*filter', ':Q - [0:0]', '-X Q', '-A A -j Q', 'COMMIT'), 4, "Chain 'Q' does not exist"],
    ['-N of an existing chain', lines('*filter', '-N A', 'COMMIT'), 2, 'Chain already exists.'],
    // iptables-nft ignores a policy on a user chain, iptables-legacy refuses it; so does the model (docs/deviations.md).
    ['a policy on a user chain', lines('*filter', ':E ACCEPT [0:0]', 'COMMIT'), 2, "Can't set policy `ACCEPT' on `E': Built-in chains only"],
  ];
  for (const [what, text, line, message] of failures) {
    it(`refuses ${what}, leaving the tables as they were`, () => {
      const result = applyRestore(base, text, { noflush: true });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const { tables, ...error } = result.error;
      expect(error).toEqual({ _tag: 'ErrIptablesRestore', line, message });
      expect(tables).toBe(base);
    });
  }

  it('commits each block at its COMMIT: a failing later block keeps the earlier ones, and the failing block is not applied', () => {
    const text = lines('*filter', ':Y - [0:0]', 'COMMIT', '*nat', ':M - [0:0]', '-A NOPE -j RETURN', 'COMMIT');
    const result = applyRestore(base, text, { noflush: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.line).toBe(6);
    expect(printTables(result.error.tables)).toContain(':Y - [0:0]');
    expect(printTables(result.error.tables)).not.toContain(':M - [0:0]');
    // The same holds for a malformed line: the blocks before it are applied.
    const malformed = applyRestore(base, lines('*filter', ':Y - [0:0]', 'COMMIT', '*nat', '-A N --bogus', 'COMMIT'), { noflush: true });
    expect(malformed.ok).toBe(false);
    if (malformed.ok) return;
    expect(malformed.error.line).toBe(5);
    expect(printTables(malformed.error.tables)).toContain(':Y - [0:0]');
  });
});

describe('tablesEqual', () => {
  it('ignores chain creation order and table order, and sees policies, rules and rule order', () => {
    const one = applied(emptyTables(4), lines('*filter', ':A - [0:0]', ':B - [0:0]', '-A A -j B', '-A A -j ACCEPT', 'COMMIT', '*nat', ':N - [0:0]', 'COMMIT'));
    const other = applied(emptyTables(4), lines('*nat', ':N - [0:0]', 'COMMIT', '*filter', ':B - [0:0]', ':A - [0:0]', '-A A -j B', '-A A -j ACCEPT', 'COMMIT'));
    expect(tablesEqual(one, other)).toBe(true);
    expect(tablesEqual(one, applied(one, lines('*filter', ':A - [0:0]', '-A A -j ACCEPT', '-A A -j B', 'COMMIT')))).toBe(false);
    expect(tablesEqual(one, applied(one, lines('*filter', ':FORWARD DROP [0:0]', 'COMMIT')))).toBe(false);
    expect(tablesEqual(one, applied(one, lines('*filter', ':C - [0:0]', 'COMMIT')))).toBe(false);
    expect(tablesEqual(one, applied(one, lines('*mangle', ':C - [0:0]', 'COMMIT')))).toBe(false);
    // The same rule written two ways is stored once: `-p tcp --dport 80` gains its `-m tcp`.
    const spelled = (rule: string) => applied(emptyTables(4), lines('*filter', ':A - [0:0]', `-A A ${rule}`, 'COMMIT'));
    expect(tablesEqual(spelled('-p tcp --dport 80 -j ACCEPT'), spelled('-p tcp -m tcp --dport 80 -j ACCEPT'))).toBe(true);
    expect(tablesEqual(emptyTables(4), emptyTables(6))).toBe(false);
  });
});

describe('a RuleCache', () => {
  it('changes no result: the same steps with and without one leave equal tables, errors included', () => {
    const cache = createRuleCache();
    const steps = [
      lines('*filter', ':A - [0:0]', ':B - [0:0]', '-A A -p tcp --dport 80 -j B', '-A B -j ACCEPT', 'COMMIT'),
      lines('*filter', ':A - [0:0]', '-A A -p tcp --dport 80 -j B', '-A A -p tcp --dport 80 -j B', 'COMMIT'),
      lines('*filter', ':B - [0:0]', '-X B', 'COMMIT'),
      lines('*filter', ':A - [0:0]', ':B - [0:0]', '-X B', '-A A -p tcp --dport 80 -j B', 'COMMIT'),
      lines('*nat', ':B - [0:0]', '-A B -p tcp --dport 80 -j B', 'COMMIT'),
    ];
    let plain = emptyTables(4);
    let cached = emptyTables(4);
    for (const step of steps) {
      const a = applyRestore(plain, step, { noflush: true });
      const b = applyRestore(cached, step, { noflush: true, cache });
      expect(b.ok).toBe(a.ok);
      const failure = (r: typeof a) => (r.ok ? undefined : { _tag: r.error._tag, line: r.error.line, message: r.error.message });
      expect(failure(a)).toEqual(failure(b));
      plain = a.ok ? a.value : a.error.tables;
      cached = b.ok ? b.value : b.error.tables;
      expect(printTables(cached)).toBe(printTables(plain));
      expect(tablesEqual(cached, plain)).toBe(true);
    }
    // The last step put the same rule line in another table: stored per table.
    expect(printTables(cached)).toContain('*nat\n');
  });
});
