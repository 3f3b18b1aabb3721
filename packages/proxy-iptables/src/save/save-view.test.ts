import { describe, expect, test } from 'vitest';
import { loadIptablesRestore } from './load-restore.js';
import { iptablesSaveView } from './save-view.js';

function view(text: string, family: 4 | 6 = 4, backend: 'nft' | 'legacy' = 'nft'): string {
  const r = iptablesSaveView(text, { family, backend });
  return r.ok ? r.value : `error at line ${r.error.line}: ${r.error.message}`;
}

function ruleLines(text: string, family: 4 | 6 = 4): string[] {
  return view(text, family)
    .split('\n')
    .filter((l) => l.startsWith('-A '));
}

describe('the iptables-save view of kube-proxy rules', () => {
  test('the reference §8.4 example: -s/-d/-p first, /32 added, -m tcp keeps its place', () => {
    expect(
      ruleLines(
        '*nat\n:KUBE-SVC-X - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n-A KUBE-SVC-X -m comment --comment "ns/s:p cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ\nCOMMIT\n',
      ),
    ).toEqual([
      '-A KUBE-SVC-X ! -s 10.0.0.0/8 -d 172.30.0.41/32 -p tcp -m comment --comment "ns/s:p cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ',
    ]);
  });

  test('worked example B: probability, DNAT, MARK', () => {
    const lines = ruleLines(
      [
        '*nat',
        ':KUBE-SVC-CDGGSHYLG3RE2FKL - [0:0]',
        ':KUBE-SEP-AFGSLHOD2HFNCBX4 - [0:0]',
        ':KUBE-MARK-MASQ - [0:0]',
        '-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000',
        '-A KUBE-SVC-CDGGSHYLG3RE2FKL -m comment --comment "default/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.3333333333 -j KUBE-SEP-AFGSLHOD2HFNCBX4',
        '-A KUBE-SEP-AFGSLHOD2HFNCBX4 -m comment --comment default/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080',
        'COMMIT',
        '',
      ].join('\n'),
    );
    expect(lines).toEqual([
      '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
      '-A KUBE-SEP-AFGSLHOD2HFNCBX4 -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.5:8080',
      '-A KUBE-SVC-CDGGSHYLG3RE2FKL -m comment --comment "default/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-AFGSLHOD2HFNCBX4',
    ]);
  });

  test('MARK --xor-mark is printed as --set-xmark V/0x0, and the mark match drops an all-ones mask', () => {
    expect(
      ruleLines('*nat\n:P - [0:0]\n-A P -m mark ! --mark 0x00004000/0x00004000 -j RETURN\n-A P -j MARK --xor-mark 0x00004000\nCOMMIT\n'),
    ).toEqual(['-A P -m mark ! --mark 0x4000/0x4000 -j RETURN', '-A P -j MARK --set-xmark 0x4000/0x0']);
  });

  test('REJECT without --reject-with is printed with the family\'s default', () => {
    expect(ruleLines('*filter\n:X - [0:0]\n-A X -j REJECT\nCOMMIT\n', 4)).toEqual(['-A X -j REJECT --reject-with icmp-port-unreachable']);
    expect(ruleLines('*filter\n:X - [0:0]\n-A X -j REJECT\nCOMMIT\n', 6)).toEqual(['-A X -j REJECT --reject-with icmp6-port-unreachable']);
  });

  test('recent gets its defaults: name DEFAULT, the full mask of the family, --rsource', () => {
    expect(ruleLines('*nat\n:X - [0:0]\n-A X -m recent --name S --set -j RETURN\nCOMMIT\n', 6)).toEqual([
      '-A X -m recent --set --name S --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource -j RETURN',
    ]);
  });

  test('a comment longer than 255 bytes is cut, as iptables stores it', () => {
    const long = 'a'.repeat(300);
    expect(ruleLines(`*filter\n:X - [0:0]\n-A X -m comment --comment ${long} -j ACCEPT\nCOMMIT\n`)).toEqual([
      `-A X -m comment --comment ${'a'.repeat(255)} -j ACCEPT`,
    ]);
  });

  test('the layout: built-in chains first with their policy, then user chains sorted, rules grouped by chain', () => {
    expect(view('*filter\n:b - [0:0]\n:B - [0:0]\n:A - [0:0]\n-A b -j ACCEPT\n-A A -j b\n-A INPUT -j B\n:FORWARD DROP [5:6]\nCOMMIT\n')).toBe(
      [
        '*filter',
        ':INPUT ACCEPT [0:0]',
        ':FORWARD DROP [0:0]',
        ':OUTPUT ACCEPT [0:0]',
        ':A - [0:0]',
        ':B - [0:0]',
        ':b - [0:0]',
        '-A INPUT -j B',
        '-A A -j b',
        '-A b -j ACCEPT',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  test('table order: nft uses its fixed list, legacy the reverse of first use', () => {
    const text = '*filter\n:F - [0:0]\nCOMMIT\n*mangle\n:M - [0:0]\nCOMMIT\n*nat\n:N - [0:0]\nCOMMIT\n';
    const tables = (backend: 'nft' | 'legacy'): string[] =>
      view(text, 4, backend)
        .split('\n')
        .filter((l) => l.startsWith('*'));
    expect(tables('nft')).toEqual(['*mangle', '*filter', '*nat']);
    expect(tables('legacy')).toEqual(['*nat', '*mangle', '*filter']);
  });

  test('a block with no statements makes a table for legacy only', () => {
    expect(view('*filter\nCOMMIT\n', 4, 'nft')).toBe('');
    expect(view('*filter\nCOMMIT\n', 4, 'legacy')).toBe('*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n');
  });

  test('a later block of the same table replaces the earlier one', () => {
    expect(ruleLines('*filter\n:X - [0:0]\n-A X -j DROP\nCOMMIT\n*filter\n:Y - [0:0]\n-A Y -j ACCEPT\nCOMMIT\n')).toEqual(['-A Y -j ACCEPT']);
  });
});

describe('backend differences and cut-offs', () => {
  test('iptables-nft reads a negated tcp/udp port range from 0 back as the complement (checked on 1.8.9)', () => {
    const text = '*filter\n:X - [0:0]\n-A X -p udp -m udp ! --dport 0:5\n-A X -p tcp -m tcp ! --sport 0:65534\n-A X -p sctp -m sctp ! --dport 0:5\nCOMMIT\n';
    expect(ruleLines(text)).toEqual(['-A X -p udp -m udp --dport 6:65535', '-A X -p tcp -m tcp --sport 65535', '-A X -p sctp -m sctp ! --dport 0:5']);
    expect(
      view(text, 4, 'legacy')
        .split('\n')
        .filter((l) => l.startsWith('-A ')),
    ).toEqual(['-A X -p udp -m udp ! --dport 0:5', '-A X -p tcp -m tcp ! --sport 0:65534', '-A X -p sctp -m sctp ! --dport 0:5']);
  });

  test('a negated full port range never matches and is refused; the plain full range is dropped', () => {
    expect(view('*filter\n:X - [0:0]\n-A X -p tcp -m tcp ! --dport 0:65535\nCOMMIT\n')).toBe('error at line 3: --dport ! 0:65535 never matches (not modelled)');
    expect(ruleLines('*filter\n:X - [0:0]\n-A X -p tcp -m tcp --dport 0:65535\nCOMMIT\n')).toEqual(['-A X -p tcp -m tcp']);
  });

  test('a negated any-address is refused (iptables-nft refuses it)', () => {
    expect(view('*filter\n:X - [0:0]\n-A X ! -s 10.0.0.0/0 -j ACCEPT\nCOMMIT\n')).toBe(
      'error at line 3: RULE_APPEND failed (Invalid argument): ! 10.0.0.0/0 never matches',
    );
  });

  test('a comment is cut at 255 bytes without splitting a character', () => {
    const text = `${'a'.repeat(254)}é`;
    expect(ruleLines(`*filter\n:X - [0:0]\n-A X -m comment --comment ${text} -j ACCEPT\nCOMMIT\n`)).toEqual([
      `-A X -m comment --comment ${'a'.repeat(254)} -j ACCEPT`,
    ]);
  });

  test('several tcp/udp matches in one rule are refused for nft, which folds them, and kept for legacy', () => {
    const text = '*filter\n:X - [0:0]\n-A X -p udp -m udp --dport 1 -m udp --sport 2 -j ACCEPT\nCOMMIT\n';
    expect(view(text, 4, 'nft')).toBe('error at line 3: several tcp/udp matches in one rule: iptables-nft-save folds them (not modelled)');
    expect(
      view(text, 4, 'legacy')
        .split('\n')
        .filter((l) => l.startsWith('-A ')),
    ).toEqual(['-A X -p udp -m udp --dport 1 -m udp --sport 2 -j ACCEPT']);
  });

  test('IPv6 addrtype refuses the IPv4-only types', () => {
    expect(view('*filter\n:X - [0:0]\n-A X -m addrtype --dst-type BROADCAST -j ACCEPT\nCOMMIT\n', 6)).toMatch(/^error at line 3: .*BROADCAST/);
    expect(ruleLines('*filter\n:X - [0:0]\n-A X -m addrtype --dst-type BROADCAST -j ACCEPT\nCOMMIT\n', 4)).toEqual([
      '-A X -m addrtype --dst-type BROADCAST -j ACCEPT',
    ]);
  });

  test('-F and -X without a chain act on every chain of the table', () => {
    expect(view('*filter\n:X - [0:0]\n:Y - [0:0]\n-A X -j Y\n-A INPUT -j ACCEPT\n-F\n-X\nCOMMIT\n')).toBe(
      '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n',
    );
  });
});

describe('what iptables-restore refuses, the loader refuses', () => {
  // Each case was checked against iptables-nft-restore and iptables-legacy-restore 1.8.9
  // (both exit non-zero); the real-parser test re-checks them on every CI run.
  test.each([
    ['*filter\n:X - [0:0]\n-A X -j NOPE\nCOMMIT\n', 3, "Chain 'NOPE' does not exist"],
    ['*filter\n:X - [0:0]\n-A NOPE -j ACCEPT\nCOMMIT\n', 3, 'No chain/target/match by that name.'],
    ['*filter\n:X - [0:0]\n-A X -j ACCEPT\n-X X\nCOMMIT\n', 4, 'CHAIN_DEL failed (Device or resource busy): chain X'],
    ['*filter\n:X - [0:0]\n:Y - [0:0]\n-A Y -j X\n-X X\nCOMMIT\n', 5, 'CHAIN_DEL failed (Device or resource busy): chain X'],
    ['*filter\n:X - [0:0]\n-N X\nCOMMIT\n', 3, 'Chain already exists.'],
    ['*nat\n:X - [0:0]\n-A X -j DROP\nCOMMIT\n', 3, 'The "nat" table is not intended for filtering, the use of DROP is therefore inhibited.'],
    ['*filter\n:X - [0:0]\n-A X -j DNAT --to-destination 1.2.3.4\nCOMMIT\n', 3, 'RULE_APPEND failed (Invalid argument): DNAT is only valid in the nat table'],
    ['*nat\n:X - [0:0]\n-A X -j DNAT --to-destination 1.2.3.4:80\nCOMMIT\n', 3, 'Need TCP, UDP, SCTP or DCCP with port specification'],
    ['*filter\n:X - [0:0]\n-A X -m statistic --mode random --probability 1.5 -j ACCEPT\nCOMMIT\n', 3, 'statistic: bad value for option "--probability", or out of range (0-1).'],
    ['*filter\n:X - [0:0]\n-A X -m statistic --mode random -j ACCEPT\nCOMMIT\n', 3, '--probability must be specified when using random mode'],
    ['*filter\n:X - [0:0]\n-A X -m tcp --dport 80 -j ACCEPT\nCOMMIT\n', 3, 'RULE_APPEND failed (Invalid argument): -m tcp needs -p tcp'],
    ['*filter\n:X - [0:0]\n-A X -j REJECT --reject-with tcp-reset\nCOMMIT\n', 3, 'RULE_APPEND failed (Invalid argument): REJECT --reject-with tcp-reset needs -p tcp'],
    ['*filter\n:X - [0:0]\n-A X -s 10.0.0.256 -j ACCEPT\nCOMMIT\n', 3, "host/network `10.0.0.256' not found"],
    ['*bogus\n:X - [0:0]\nCOMMIT\n', 1, "can't initialize iptables table `bogus': Table does not exist"],
    ['*filter\n:X - [0:0]\n-I X 2 -j ACCEPT\nCOMMIT\n', 3, 'Index of insertion too big.'],
    ['*filter\n:X - [0:0]\n:X - [0:0]\nCOMMIT\n', 3, "error creating chain 'X':File exists"],
    ['*filter\n:X DROP [0:0]\nCOMMIT\n', 2, "Can't set policy `DROP' on `X': Built-in chains only"],
  ])('%j fails at line %i: %s', (text, line, message) => {
    expect(loadIptablesRestore(text)).toStrictEqual({ ok: false, error: { _tag: 'ErrIptablesRestore', line, message } });
  });
});
