import { describe, expect, test } from 'vitest';
import { parseIptablesRestore } from './parse-restore.js';
import { parseRuleWords } from './parse-rule.js';
import type { RuleSpec } from './rule-spec.js';

function rule(text: string): RuleSpec | string {
  const r = parseRuleWords(text.split(' '));
  return r.ok ? r.value : r.message;
}

describe('parsing one rule', () => {
  test('kube-proxy\'s cluster-IP masquerade rule: header fields, matches in order, options owned by their match', () => {
    const parsed = parseIptablesRestore(
      '*nat\n:KUBE-SVC-X - [0:0]\n-A KUBE-SVC-X -m comment --comment "ns/s:p cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ\nCOMMIT\n',
    );
    expect(parsed).toStrictEqual({
      ok: true,
      value: {
        tables: [
          {
            name: 'nat',
            line: 1,
            statements: [
              { kind: 'declare-chain', line: 2, chain: 'KUBE-SVC-X', policy: '-' },
              {
                kind: 'append',
                line: 3,
                chain: 'KUBE-SVC-X',
                rule: {
                  matches: [
                    { module: 'comment', options: [{ name: '--comment', negated: false, args: ['ns/s:p cluster IP'] }] },
                    { module: 'tcp', options: [{ name: '--dport', negated: false, args: ['80'] }] },
                  ],
                  protocol: { value: 'tcp', negated: false },
                  destination: { value: '172.30.0.41', negated: false },
                  source: { value: '10.0.0.0/8', negated: true },
                  target: { name: 'KUBE-MARK-MASQ', goto: false, options: [] },
                },
              },
            ],
          },
        ],
      },
    });
  });

  test('an option no explicit match knows loads the protocol\'s implicit match where it appears', () => {
    expect(rule('-p udp -m comment --comment x --dport 53 -j ACCEPT')).toStrictEqual({
      protocol: { value: 'udp', negated: false },
      matches: [
        { module: 'comment', options: [{ name: '--comment', negated: false, args: ['x'] }] },
        { module: 'udp', options: [{ name: '--dport', negated: false, args: ['53'] }] },
      ],
      target: { name: 'ACCEPT', goto: false, options: [] },
    });
  });

  test('target options go to the target; aliases are stored under the printed name', () => {
    expect(rule('-m tcp -p tcp --destination-port 80 -j DNAT --to-destination 10.0.0.1:80')).toStrictEqual({
      protocol: { value: 'tcp', negated: false },
      matches: [{ module: 'tcp', options: [{ name: '--dport', negated: false, args: ['80'] }] }],
      target: { name: 'DNAT', goto: false, options: [{ name: '--to-destination', negated: false, args: ['10.0.0.1:80'] }] },
    });
  });

  test('a rule with no target only counts', () => {
    expect(rule('-m comment --comment x')).toStrictEqual({
      matches: [{ module: 'comment', options: [{ name: '--comment', negated: false, args: ['x'] }] }],
    });
  });

  test.each([
    ['-j ACCEPT --bogus', 'unknown option "--bogus"'],
    ['-m bogus -j ACCEPT', "Couldn't load match `bogus':No such file or directory"],
    ['-m comment ! --comment x', 'comment: option "--comment" cannot be inverted.'],
    ['-s', 'option "-s" requires an argument'],
    ['-s 1.2.3.4 -s 1.2.3.5', 'multiple -s flags not allowed'],
    ['-j A -j B', 'multiple -j flags not allowed'],
    ['-p tcp !', 'no argument following "!"'],
    ['foo', "Bad argument `foo'"],
    ['--dport 80', 'unknown option "--dport"'],
  ])('%s is refused: %s', (text, message) => {
    expect(rule(text)).toBe(message);
  });
});

describe('parsing restore text', () => {
  test('a table name, COMMIT and a chain line may carry blank space around them', () => {
    const parsed = parseIptablesRestore('*nat \t\n:X - [0:0]\t\n COMMIT \r\n');
    expect(parsed.ok && parsed.value.tables.map((t) => [t.name, t.statements.map((s) => s.kind === 'declare-chain' && s.chain)])).toEqual([['nat', ['X']]]);
  });

  test('comment lines and blank lines are skipped; -I takes an optional position; -N, -F, -X', () => {
    const parsed = parseIptablesRestore('# hi\n\n*filter\n:X - [0:0]\n-I X 2 -j ACCEPT\n-N Y\n-F\n-X Y\nCOMMIT\n');
    expect(parsed.ok && parsed.value.tables[0]?.statements.map((s) => s.kind)).toEqual([
      'declare-chain',
      'insert',
      'new-chain',
      'flush',
      'delete-chain',
    ]);
    const insert = parsed.ok ? parsed.value.tables[0]?.statements[1] : undefined;
    expect(insert?.kind === 'insert' && insert.position).toBe(2);
  });

  test.each([
    ['*nat\n:X - [0:0]\n', 3, 'COMMIT expected at line 3'],
    ['-A X -j ACCEPT\n', 1, "line 1: expected a table (`*name')"],
    ['*nat\n:ABCDEFGHIJKLMNOPQRSTUVWXYZ123 - [0:0]\nCOMMIT\n', 2, "Invalid chain name `ABCDEFGHIJKLMNOPQRSTUVWXYZ123' (28 chars max)"],
    ['*nat\n:X\nCOMMIT\n', 2, "no policy for chain `X'"],
    ['*nat\n-A X -m comment --comment "open\nCOMMIT\n', 2, 'unterminated quoted argument'],
    ['*nat\n-D X -j ACCEPT\nCOMMIT\n', 2, "unknown or unmodelled command `-D'"],
    ['*nat\n*filter\nCOMMIT\n', 2, 'COMMIT expected at line 2'],
    // Lines are not trimmed before they are recognised (kube-proxy's test reader trims them):
    [' *nat\nCOMMIT\n', 1, "line 1: expected a table (`*name')"],
    ['*nat\n :X - [0:0]\nCOMMIT\n', 2, "unknown or unmodelled command `:X'"],
    ['*nat\n  # indented\nCOMMIT\n', 2, "unknown or unmodelled command `#'"],
  ])('%j fails at line %i: %s', (text, line, message) => {
    expect(parseIptablesRestore(text)).toStrictEqual({ ok: false, error: { _tag: 'ErrIptablesRestore', line, message } });
  });
});
