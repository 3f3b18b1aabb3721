// Good/bad vectors are upstream's own, from
// staging/src/k8s.io/apimachinery/pkg/util/validation/validation_test.go (TestIsDNS1123Label,
// TestIsDNS1123Subdomain, TestIsDNS1035Label, TestIsValidPortNum, TestIsInRange,
// TestIsValidPortName, TestIsQualifiedName, TestIsValidLabelValue). Messages are the
// literal strings of validation.go and ip.go; the DNS-1035 one is also exactly what an
// apiserver returned for `Service "no-domain.com"` (nextcloud/all-in-one PR 3788).
import {
  DNS1035_LABEL_MSG as DNS1035_MSG,
  DNS1123_LABEL_MSG as LABEL_MSG,
  DNS1123_SUBDOMAIN_MSG as SUBDOMAIN_MSG,
  QUALIFIED_NAME_MSG as QNAME_MSG,
} from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { fieldPath } from './field-path.js';
import { invalid, invalidError } from './field-errors.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isInRange,
  isQualifiedName,
  isValidCIDR,
  isValidIP,
  isValidIPv4Address,
  isValidIPv6Address,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateNamespaceName,
  validateServiceName,
} from './names.js';


describe('isDNS1123Label', () => {
  const good = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)];
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'a'.repeat(64),
  ];
  it.each(good)('accepts %j', (v) => expect(isDNS1123Label(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1123Label(v).length).toBeGreaterThan(0));

  it('explains the regex, says "must not contain dots" for a subdomain, and measures length separately', () => {
    expect(isDNS1123Label('A')).toEqual([LABEL_MSG]);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Label('A'.repeat(64))).toEqual(['must be no more than 63 characters', LABEL_MSG]);
  });
});

describe('isDNS1123Subdomain', () => {
  const good = [
    'a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a.a', 'ab.a', 'abc.a',
    'a1.a', 'a-1.a', 'a--1--2--b.a', 'a.1', 'ab.1', 'abc.1', 'a1.1', 'a-1.1', 'a--1--2--b.1', '0.a', '01.a', '012.a',
    '1a.a', '1-a.a', '0.1', '01.1', '012.1', '1a.1', '1-a.1', '1--a--b--2.1', 'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5',
    '11.22.33.44.55', 'a'.repeat(253),
  ];
  const bad = [
    '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
    '.', 'a.', '.a', 'a..b', '1.', '.1', '1..2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'A.a', 'aB.a', 'ab.A',
    'A1.a', 'a1.A', 'A.1', 'aB.1', 'A1.1', '1A.1', '0.A', '01.A', '012.A', '1A.a', '1a.A', 'A.B.C.D.E', 'AA.BB.CC.DD.EE',
    'a.B.c.d.e', 'aa.bB.cc.dd.ee', 'a@b', 'a,b', 'a;b', 'a:b', 'a%b', 'a?b', 'a$b', 'a'.repeat(254),
  ];
  it.each(good)('accepts %j', (v) => expect(isDNS1123Subdomain(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1123Subdomain(v).length).toBeGreaterThan(0));

  it('gives upstream message text', () => {
    expect(isDNS1123Subdomain('A')).toEqual([SUBDOMAIN_MSG]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
});

describe('isDNS1035Label', () => {
  const good = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', 'a'.repeat(63)];
  const bad = [
    '0', '01', '012', '1a', '1-a', '1--a--b--2', '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1',
    '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ',
    ' 1', '1 2', 'a'.repeat(64),
  ];
  it.each(good)('accepts %j', (v) => expect(isDNS1035Label(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isDNS1035Label(v).length).toBeGreaterThan(0));

  it('reproduces the message an apiserver returned for Service "no-domain.com"', () => {
    const errs = validateServiceName('no-domain.com', false).map((msg) =>
      invalid(fieldPath('metadata', 'name'), 'no-domain.com', msg),
    );
    expect(invalidError('Service', 'no-domain.com', errs).message).toBe(
      `Service "no-domain.com" is invalid: metadata.name: Invalid value: "no-domain.com": ${DNS1035_MSG}`,
    );
  });
});

describe('port numbers and names', () => {
  it.each([1, 2, 1000, 16384, 32768, 65535])('accepts port %d', (p) => expect(isValidPortNum(p)).toEqual([]));
  it.each([0, -1, 65536, 100000])('rejects port %d', (p) =>
    expect(isValidPortNum(p)).toEqual(['must be between 1 and 65535, inclusive']),
  );

  it('checks inclusive ranges (TestIsInRange)', () => {
    expect(isInRange(1, 0, 10)).toEqual([]);
    expect(isInRange(5, 5, 20)).toEqual([]);
    expect(isInRange(25, 10, 25)).toEqual([]);
    expect(isInRange(1, 2, 10)).toEqual(['must be between 2 and 10, inclusive']);
    expect(isInRange(5, -4, 2)).toEqual(['must be between -4 and 2, inclusive']);
  });

  it.each(['telnet', 're-mail-ck', 'pop3', 'a', 'a-1', '1-a', 'a-1-b-2-c', '1-a-2-b-3'])('accepts port name %j', (n) =>
    expect(isValidPortName(n)).toEqual([]),
  );

  it('gives one message per broken IANA_SVC_NAME rule, in upstream order', () => {
    expect(isValidPortName('longerthan15characters')).toEqual(['must be no more than 15 characters']);
    expect(isValidPortName('12345')).toEqual(['must contain at least one letter (a-z)']);
    expect(isValidPortName('1-2-3-4')).toEqual(['must contain at least one letter (a-z)']);
    expect(isValidPortName('-begin')).toEqual(['must not begin or end with a hyphen']);
    expect(isValidPortName('end-')).toEqual(['must not begin or end with a hyphen']);
    expect(isValidPortName('two--hyphens')).toEqual(['must not contain consecutive hyphens']);
    expect(isValidPortName('whois++')).toEqual(['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)']);
    expect(isValidPortName('')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
  });
});

describe('isQualifiedName', () => {
  const good = [
    'simple', 'now-with-dashes', '1-starts-with-num', '1234', 'simple/simple', 'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes', 'now.with.dots/simple', 'now-with.dashes-and.dots/simple', '1-num.2-num/3-num',
    '1234/5678', '1.2.3.4/5678', 'Uppercase_Is_OK_123', 'example.com/Uppercase_Is_OK_123', 'requests.storage-foo',
    'a'.repeat(63), `${'a'.repeat(253)}/${'b'.repeat(63)}`,
  ];
  const bad = [
    'nospecialchars%^=@', 'cantendwithadash-', '-cantstartwithadash-', 'only/one/slash', 'Example.com/abc',
    'example_com/abc', 'example.com/', '/simple', 'a'.repeat(64), `${'a'.repeat(254)}/abc`,
  ];
  it.each(good)('accepts %j', (v) => expect(isQualifiedName(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isQualifiedName(v).length).toBeGreaterThan(0));

  it('prefixes messages with the part that failed', () => {
    expect(isQualifiedName('only/one/slash')).toEqual([
      `a qualified name ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
    expect(isQualifiedName('/simple')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/abc')).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', `name part ${QNAME_MSG}`]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
  });
});

describe('isValidLabelValue', () => {
  const good = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), ''];
  const bad = [
    'nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts-with-dash',
    'ends-with-dash-', '.starts.with.dot', 'ends.with.dot.', 'a'.repeat(64),
  ];
  it.each(good)('accepts %j', (v) => expect(isValidLabelValue(v)).toEqual([]));
  it.each(bad)('rejects %j', (v) => expect(isValidLabelValue(v).length).toBeGreaterThan(0));

  it('gives upstream message text and counts bytes, not characters', () => {
    expect(isValidLabelValue('-starts-with-dash')).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
    // 32 two-byte characters are 64 bytes: too long as well as outside the alphabet.
    expect(isValidLabelValue('é'.repeat(32))[0]).toBe('must be no more than 63 characters');
  });
});

describe('IP addresses (ParseIPSloppy) and CIDRs (ParseCIDRSloppy)', () => {
  const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
  it.each([
    '10.9.8.7', '0.0.0.0', '255.255.255.255', '010.001.002.003', '2001:db8::ffff', '::', '::1', '::ffff:1.2.3.4',
    '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '0:0:0:0:0:0:1.2.3.4', 'FE80::1',
  ])('accepts IP %j', (v) => expect(isValidIP(v)).toEqual([]));

  it.each([
    '', '1.2.3', '1.2.3.4.5', '256.1.1.1', ' 1.2.3.4', '1.2.3.4 ', 'a.b.c.d', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7:8::',
    '1::2::3', ':1:2::', '::ffff:1.2.3', 'fe80::1%eth0', '12345::', 'localhost',
  ])('rejects IP %j', (v) => expect(isValidIP(v)).toEqual([IP_MSG]));

  it('treats an IPv4-mapped IPv6 address as IPv4, as Go To4() does', () => {
    expect(isValidIPv4Address('::ffff:1.2.3.4')).toEqual([]);
    expect(isValidIPv6Address('::ffff:1.2.3.4')).toEqual(['must be a valid IPv6 address']);
    expect(isValidIPv4Address('2001:db8::1')).toEqual(['must be a valid IPv4 address']);
    expect(isValidIPv6Address('2001:db8::1')).toEqual([]);
    expect(isValidIPv4Address('bogus')).toEqual(['must be a valid IPv4 address']);
  });

  it.each(['10.0.0.0/8', '10.0.0.1/32', '0.0.0.0/0', '2001:db8::/64', '::/0', '10.0.0.0/08', '010.0.0.0/8', '::ffff:1.2.3.4/33'])(
    'accepts CIDR %j',
    (v) => expect(isValidCIDR(v)).toEqual([]),
  );

  it.each(['10.0.0.0', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8 ', '/8', '1.2.3/8'])(
    'rejects CIDR %j',
    (v) => expect(isValidCIDR(v)).toEqual(['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']),
  );
});

describe('name validation functions (api/validation/generic.go)', () => {
  it('validates names with the kind-specific rule', () => {
    expect(validateServiceName('my-svc', false)).toEqual([]);
    expect(validateServiceName('1svc', false)).toEqual([DNS1035_MSG]);
    expect(validateNamespaceName('kube-system', false)).toEqual([]);
    expect(validateNamespaceName('Kube', false)).toEqual([LABEL_MSG]);
  });

  it('masks a trailing dash of a generateName by dropping two characters and adding "a"', () => {
    expect(nameIsDNS1035Label('abc-', true)).toEqual([]);
    expect(nameIsDNS1035Label('abc-', false)).toEqual([DNS1035_MSG]);
    // "1-" is checked as "a": upstream's quirk lets it pass the DNS-1035 rule.
    expect(nameIsDNS1035Label('1-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('a.b-', true)).toEqual([]);
    expect(nameIsDNSLabel('ab.c-', true)).toEqual(['must not contain dots']);
  });
});
