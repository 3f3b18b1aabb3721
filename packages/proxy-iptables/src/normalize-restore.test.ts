// normalizeRestoreText against upstream's TestSortIPTablesRules cases
// (pkg/proxy/iptables/proxier_test.go, v1.31 line), re-typed.
import { describe, expect, it } from 'vitest';
import { normalizeRestoreText } from './normalize-restore.js';

/** The value of a successful normalisation, or the failure itself (so a failure shows in the diff). */
function normalizedValue(text: string): unknown {
  const result = normalizeRestoreText(text);
  return result.ok ? result.value : result;
}
import { dedent } from './upstream.fixtures.js';

const forward = dedent(`
  -A KUBE-NODEPORTS -m comment --comment "ns2/svc2:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT
  -A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
`);
const table = (name: string): string =>
  `*${name}\n:KUBE-SERVICES - [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n:KUBE-FORWARD - [0:0]\n:KUBE-NODEPORTS - [0:0]\n${forward}COMMIT\n`;
const sortedTable = (name: string): string =>
  `*${name}\n:KUBE-NODEPORTS - [0:0]\n:KUBE-SERVICES - [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n:KUBE-FORWARD - [0:0]\n${forward}COMMIT\n`;

describe('TestSortIPTablesRules', () => {
  it('extra tables: tables sorted by name, chains KUBE-NODEPORTS, KUBE-SERVICES, then by name', () => {
    expect(normalizedValue(`\n${table('filter')}${table('nat')}${table('mangle')}`)).toBe(
      sortedTable('filter') + sortedTable('mangle') + sortedTable('nat'),
    );
  });

  it('correctly match same service name in different styles of comments', () => {
    const input = dedent(`
      *filter
      COMMIT
      *nat
      :KUBE-SERVICES - [0:0]
      -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" svc2 line 1
      -A KUBE-SERVICES -m comment --comment ns2/svc2 svc2 line 2
      -A KUBE-SERVICES -m comment --comment "ns2/svc2 blah" svc2 line 3
      -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" svc1 line 1
      -A KUBE-SERVICES -m comment --comment ns1/svc1 svc1 line 2
      -A KUBE-SERVICES -m comment --comment "ns1/svc1 blah" svc1 line 3
      -A KUBE-SERVICES -m comment --comment ns4/svc4 svc4 line 1
      -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" svc4 line 2
      -A KUBE-SERVICES -m comment --comment "ns4/svc4 blah" svc4 line 3
      -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" svc3 line 1
      -A KUBE-SERVICES -m comment --comment "ns3/svc3 blah" svc3 line 2
      -A KUBE-SERVICES -m comment --comment ns3/svc3 svc3 line 3
      COMMIT
    `);
    expect(normalizedValue(input)).toBe(
      dedent(`
        *filter
        COMMIT
        *nat
        :KUBE-SERVICES - [0:0]
        -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" svc1 line 1
        -A KUBE-SERVICES -m comment --comment ns1/svc1 svc1 line 2
        -A KUBE-SERVICES -m comment --comment "ns1/svc1 blah" svc1 line 3
        -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" svc2 line 1
        -A KUBE-SERVICES -m comment --comment ns2/svc2 svc2 line 2
        -A KUBE-SERVICES -m comment --comment "ns2/svc2 blah" svc2 line 3
        -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" svc3 line 1
        -A KUBE-SERVICES -m comment --comment "ns3/svc3 blah" svc3 line 2
        -A KUBE-SERVICES -m comment --comment ns3/svc3 svc3 line 3
        -A KUBE-SERVICES -m comment --comment ns4/svc4 svc4 line 1
        -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" svc4 line 2
        -A KUBE-SERVICES -m comment --comment "ns4/svc4 blah" svc4 line 3
        COMMIT
      `),
    );
  });

  it('unexpected junk lines are preserved', () => {
    const input = dedent(`
      *filter
      COMMIT
      *nat
      :KUBE-SERVICES - [0:0]
      :KUBE-SEP-RS4RBKLTHTF2IUXJ - [0:0]
      :KUBE-AAAAA - [0:0]
      :KUBE-ZZZZZ - [0:0]
      :WHY-IS-THIS-CHAIN-HERE - [0:0]
      -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" svc2 line 1
      -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.2:80
      -A KUBE-ZZZZZ -m comment --comment "mystery chain number 1"
      -A KUBE-SERVICES -m comment --comment ns2/svc2 svc2 line 2
      -A WHY-IS-THIS-CHAIN-HERE -j ACCEPT
      -A KUBE-SERVICES -m comment --comment "ns2/svc2 blah" svc2 line 3
      -A KUBE-AAAAA -m comment --comment "mystery chain number 2"
      COMMIT
    `);
    expect(normalizedValue(input)).toBe(
      dedent(`
        *filter
        COMMIT
        *nat
        :KUBE-SERVICES - [0:0]
        :KUBE-AAAAA - [0:0]
        :KUBE-SEP-RS4RBKLTHTF2IUXJ - [0:0]
        :KUBE-ZZZZZ - [0:0]
        :WHY-IS-THIS-CHAIN-HERE - [0:0]
        -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" svc2 line 1
        -A KUBE-SERVICES -m comment --comment ns2/svc2 svc2 line 2
        -A KUBE-SERVICES -m comment --comment "ns2/svc2 blah" svc2 line 3
        -A KUBE-AAAAA -m comment --comment "mystery chain number 2"
        -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.2:80
        -A KUBE-ZZZZZ -m comment --comment "mystery chain number 1"
        -A WHY-IS-THIS-CHAIN-HERE -j ACCEPT
        COMMIT
      `),
    );
  });

  it('keeps the "must be the last rule" rule last, and -X lines after the rules', () => {
    const input = dedent(`
      *nat
      :KUBE-SERVICES - [0:0]
      :KUBE-SVC-B - [0:0]
      :KUBE-SVC-A - [0:0]
      -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
      -A KUBE-SERVICES -m comment --comment "b/b cluster IP" -j KUBE-SVC-B
      -X KUBE-SVC-A
      -A KUBE-SERVICES -m comment --comment "a/a cluster IP" -j KUBE-SVC-B
      -A KUBE-SVC-B -j ACCEPT
      COMMIT
    `);
    expect(normalizedValue(input)).toBe(
      dedent(`
        *nat
        :KUBE-SERVICES - [0:0]
        :KUBE-SVC-A - [0:0]
        :KUBE-SVC-B - [0:0]
        -A KUBE-SERVICES -m comment --comment "a/a cluster IP" -j KUBE-SVC-B
        -A KUBE-SERVICES -m comment --comment "b/b cluster IP" -j KUBE-SVC-B
        -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
        -A KUBE-SVC-B -j ACCEPT
        -X KUBE-SVC-A
        COMMIT
      `),
    );
  });

  it.each([
    ['*filter\n-A KUBE-X -j ACCEPT\nCOMMIT\n', 'error parsing rule "-A KUBE-X -j ACCEPT": no such chain "KUBE-X"'],
    ['*filter\n:KUBE-X - [0:0]\n', 'could not parse iptables data (no COMMIT line?)'],
    [':KUBE-X - [0:0]\nCOMMIT\n', 'could not parse iptables data (table 1 starts with ":KUBE-X - [0:0]" not a table name)'],
    ['*filter\n:KUBE-X - [0:0]\n-A KUBE-X\nCOMMIT\n', 'error parsing rule "-A KUBE-X"'],
    ['*filter\n:KUBE-X - [0:0]\n-A KUBE-X -j\nCOMMIT\n', 'parameter "-j" requires an argument'],
    ['*filter\n:KUBE-X - [0:0]\n-A KUBE-X ! -j DROP\nCOMMIT\n', 'cannot negate parameter "-j"'],
    ['*filter\n:KUBE-X - [0:0]\n-A KUBE-X -j ACCEPT\n-X KUBE-X\nCOMMIT\n', 'cannot delete chain "KUBE-X" after adding rules'],
  ])('refuses malformed input %j with upstream parse errors', (input, message) => {
    expect(normalizeRestoreText(input)).toEqual({ ok: false, error: { _tag: 'ErrRestoreText', message } });
  });

  it('reads as upstream\'s test parser: lines trimmed before they are recognised, indented `#` lines dropped', () => {
    expect(normalizedValue('\n \t*nat \n  # indented\n :KUBE-X - [0:0] \r\n\t-A KUBE-X  -j ACCEPT\n COMMIT\n\n')).toBe(
      '*nat\n:KUBE-X - [0:0]\n-A KUBE-X  -j ACCEPT\nCOMMIT\n',
    );
    // A chain line that is not exactly `:NAME - [p:b]` ends the declarations and is then no rule.
    expect(normalizeRestoreText('*nat\n:KUBE-X  - [0:0]\nCOMMIT\n')).toEqual({ ok: false, error: { _tag: 'ErrRestoreText', message: 'error parsing rule ":KUBE-X  - [0:0]"' } });
  });
});
