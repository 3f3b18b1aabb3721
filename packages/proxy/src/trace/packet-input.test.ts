// The shape checks at a tracer's edge, one by one: every refusal names its field and says
// what was expected and what came (the message is `field: what`), and the edges of what is
// accepted (ports 0 and 65535, marks 0 and 0xffffffff, any case of a protocol, ICMP without
// a port, the other family's local addresses and recent sources). The expected texts are
// written here from the rules proxy-iptables' README states ("an ErrTrace whose field names
// the argument at fault"), not read back from the code.
import { describe, expect, it } from 'vitest';
import { fieldRefusal, refusedField, type FieldRefusal } from '@kubesvc/testkit';
import { checkFamily, checkOptions, checkPacket } from './packet-input.js';

const refusal = fieldRefusal;
const refused = (field: string, what: string): FieldRefusal => refusedField('ErrTrace', field, what);

const packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const packet6 = { source: 'fd00::2', destination: 'fd00:30::41', protocol: 'udp', destinationPort: 53, entry: 'node' };

describe('checkPacket', () => {
  it.each([
    [null, 'expected an object, got null'],
    [undefined, 'expected an object, got undefined'],
    [[packet], 'expected an object, got an array'],
    ['10.0.0.2', 'expected an object, got "10.0.0.2"'],
    [80, 'expected an object, got number 80'],
    [true, 'expected an object, got boolean true'],
    [80n, 'expected an object, got bigint 80'],
    [() => packet, 'expected an object, got function'],
  ])('refuses the packet %s: %s', (value, what) => {
    expect(refusal(checkPacket(value, 4))).toEqual(refused('packet', what));
  });

  it.each([
    ['source', 'pod-a', 4, '"pod-a" is not an IPv4 address'],
    ['source', '10.0.0.256', 4, '"10.0.0.256" is not an IPv4 address'],
    ['source', 'fd00::2', 4, '"fd00::2" is not an IPv4 address'],
    ['source', 167772162, 4, 'number 167772162 is not an IPv4 address'],
    ['source', undefined, 4, 'undefined is not an IPv4 address'],
    ['source', '10.0.0.2', 6, '"10.0.0.2" is not an IPv6 address'],
    ['destination', '172.30.0.41/32', 4, '"172.30.0.41/32" is not an IPv4 address'],
    ['destination', null, 4, 'null is not an IPv4 address'],
    ['destination', 'fd00:30::41', 4, '"fd00:30::41" is not an IPv4 address'],
    ['destination', '172.30.0.41', 6, '"172.30.0.41" is not an IPv6 address'],
  ] as const)('refuses packet.%s %j under IPv%d', (field, value, family, what) => {
    const base = family === 4 ? packet : packet6;
    expect(refusal(checkPacket({ ...base, [field]: value }, family))).toEqual(refused(`packet.${field}`, what));
  });

  it('checks the source before the destination, and both before the protocol', () => {
    expect(refusal(checkPacket({ ...packet, source: 'a', destination: 'b', protocol: 'gre' }, 4))).toEqual(refused('packet.source', '"a" is not an IPv4 address'));
    expect(refusal(checkPacket({ ...packet, destination: 'b', protocol: 'gre' }, 4))).toEqual(refused('packet.destination', '"b" is not an IPv4 address'));
  });

  it('reads the addresses of the family it is given', () => {
    expect(checkPacket(packet6, 6)).toEqual({ ok: true, value: packet6 });
    expect(checkPacket(packet, 4)).toEqual({ ok: true, value: packet });
  });

  it.each([
    ['gre', 'unknown protocol "gre" (expected tcp, udp, sctp or icmp)'],
    ['tcp ', 'unknown protocol "tcp " (expected tcp, udp, sctp or icmp)'],
    ['', 'unknown protocol "" (expected tcp, udp, sctp or icmp)'],
    [6, 'unknown protocol number 6 (expected tcp, udp, sctp or icmp)'],
    [undefined, 'unknown protocol undefined (expected tcp, udp, sctp or icmp)'],
  ])('refuses the protocol %j', (protocol, what) => {
    expect(refusal(checkPacket({ ...packet, protocol }, 4))).toEqual(refused('packet.protocol', what));
  });

  it.each([
    ['tcp', 'tcp'],
    ['TCP', 'tcp'],
    ['Udp', 'udp'],
    ['UDP', 'udp'],
    ['sctp', 'sctp'],
    ['SCTP', 'sctp'],
  ])('reads the protocol %s as %s', (protocol, lower) => {
    expect(checkPacket({ ...packet, protocol }, 4)).toEqual({ ok: true, value: { ...packet, protocol: lower } });
  });

  it.each([['pod'], ['node'], ['outside'], ['host']])('takes the entry point %s', (entry) => {
    expect(checkPacket({ ...packet, entry }, 4)).toEqual({ ok: true, value: { ...packet, entry } });
  });

  it.each([
    ['Pod', 'unknown entry point "Pod" (expected pod, node, outside or host)'],
    ['', 'unknown entry point "" (expected pod, node, outside or host)'],
    [1, 'unknown entry point number 1 (expected pod, node, outside or host)'],
    [['pod'], 'unknown entry point an array (expected pod, node, outside or host)'],
    [undefined, 'unknown entry point undefined (expected pod, node, outside or host)'],
  ])('refuses the entry point %j', (entry, what) => {
    expect(refusal(checkPacket({ ...packet, entry }, 4))).toEqual(refused('packet.entry', what));
  });

  it('checks the protocol before the entry point, and the entry point before the port', () => {
    expect(refusal(checkPacket({ ...packet, protocol: 'gre', entry: 'x' }, 4))).toEqual(
      refused('packet.protocol', 'unknown protocol "gre" (expected tcp, udp, sctp or icmp)'),
    );
    expect(refusal(checkPacket({ ...packet, entry: 'x', destinationPort: -1 }, 4))).toEqual(
      refused('packet.entry', 'unknown entry point "x" (expected pod, node, outside or host)'),
    );
  });

  it('takes an ICMP echo request without a port, in any case, and gives it no port field', () => {
    const { destinationPort, ...ping } = { ...packet, protocol: 'icmp' };
    void destinationPort;
    for (const protocol of ['icmp', 'ICMP', 'Icmp']) {
      const result = checkPacket({ ...ping, protocol }, 4);
      expect(result).toEqual({ ok: true, value: { ...ping, protocol: 'icmp' } });
      expect(result.ok && Object.keys(result.value).sort()).toEqual(['destination', 'entry', 'protocol', 'source']);
    }
    // An explicit undefined is no port.
    expect(checkPacket({ ...ping, destinationPort: undefined }, 4)).toEqual({ ok: true, value: { ...ping, protocol: 'icmp' } });
  });

  it.each([[0], [80], [null], ['80']])('refuses any port %j on an ICMP packet', (destinationPort) => {
    expect(refusal(checkPacket({ ...packet, protocol: 'ICMP', destinationPort }, 4))).toEqual(refused('packet.destinationPort', 'an ICMP echo request has no port'));
  });

  it.each([[0], [1], [65534], [65535]])('takes the port %d', (destinationPort) => {
    expect(checkPacket({ ...packet, destinationPort }, 4)).toEqual({ ok: true, value: { ...packet, destinationPort } });
  });

  it.each([
    [-1, 'number -1'],
    [65536, 'number 65536'],
    [80.5, 'number 80.5'],
    [Number.NaN, 'number NaN'],
    [Number.POSITIVE_INFINITY, 'number Infinity'],
    ['80', '"80"'],
    [80n, 'bigint 80'],
    [undefined, 'undefined'],
    [null, 'null'],
  ])('refuses the port %s', (destinationPort, shown) => {
    expect(refusal(checkPacket({ ...packet, destinationPort }, 4))).toEqual(
      refused('packet.destinationPort', `bad destination port ${shown} (expected an integer 0-65535)`),
    );
  });

  it('keeps only the packet fields, not whatever else the object carries', () => {
    const result = checkPacket({ ...packet, protocol: 'TCP', ttl: 64 }, 4);
    expect(result.ok && Object.keys(result.value).sort()).toEqual(['destination', 'destinationPort', 'entry', 'protocol', 'source']);
  });
});

const options = { localAddresses: ['192.168.0.2'] };

describe('checkOptions', () => {
  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [[], 'an array'],
    ['x', '"x"'],
  ])('refuses the options %j', (value, shown) => {
    expect(refusal(checkOptions(value))).toEqual(refused('options', `expected an object, got ${shown}`));
  });

  it('accepts the options object itself, unchanged', () => {
    const full = {
      localAddresses: [],
      recent: [],
      now: 0,
      masqueradeMark: 0x4000,
      mark: 0,
      conntrack: 'NEW',
      family: 6,
      onOutcome: () => undefined,
    };
    const result = checkOptions(full);
    expect(result.ok && result.value).toBe(full);
  });

  it.each([
    [undefined, 'undefined'],
    ['192.168.0.2', '"192.168.0.2"'],
    [{ 0: '192.168.0.2' }, 'object'],
  ])('refuses localAddresses %j', (localAddresses, shown) => {
    expect(refusal(checkOptions({ localAddresses }))).toEqual(refused('options.localAddresses', `expected an array of addresses, got ${shown}`));
  });

  it("takes both families' addresses: a node's list holds both", () => {
    expect(refusal(checkOptions({ localAddresses: ['192.168.0.2', 'fd00::2', '::1', '127.0.0.1'] }))).toBe('accepted');
    expect(refusal(checkOptions({ localAddresses: ['fd00::2'] }))).toBe('accepted');
    expect(refusal(checkOptions({ localAddresses: ['192.168.0.2'] }))).toBe('accepted');
  });

  it.each([
    [['node-1'], 0, '"node-1"'],
    [['192.168.0.2', '192.168.0.300'], 1, '"192.168.0.300"'],
    [['192.168.0.2', 'fd00::2', 'fd00::2::1'], 2, '"fd00::2::1"'],
    [['192.168.0.0/24'], 0, '"192.168.0.0/24"'],
    [[3232235522], 0, 'number 3232235522'],
    [[null], 0, 'null'],
  ])('refuses the local addresses %j at [%d]', (localAddresses, i, shown) => {
    expect(refusal(checkOptions({ localAddresses }))).toEqual(refused(`options.localAddresses[${i}]`, `${shown} is not an IP address`));
  });

  describe('recent', () => {
    const entry = { name: 'KUBE-SEP-X', source: '10.0.0.2', lastSeen: 0 };
    it.each([
      [[], 'accepted'],
      [[entry, { ...entry, source: 'fd00::2' }], 'accepted'],
      [[{ ...entry, name: '', lastSeen: -1.5 }], 'accepted'],
    ])('takes %j', (recent, expected) => {
      expect(refusal(checkOptions({ ...options, recent }))).toBe(expected);
    });

    it.each([
      ['x', 'expected an array, got "x"'],
      [null, 'expected an array, got null'],
      [{ 0: entry }, 'expected an array, got object'],
    ])('refuses recent %j', (recent, what) => {
      expect(refusal(checkOptions({ ...options, recent }))).toEqual(refused('options.recent', what));
    });

    it.each([
      [[null], 0, 'expected { name, source, lastSeen }, got null'],
      [[entry, [entry]], 1, 'expected { name, source, lastSeen }, got an array'],
      [[{ ...entry, name: 5 }], 0, 'name: expected a string, got number 5'],
      [[entry, entry, { source: '10.0.0.2', lastSeen: 0 }], 2, 'name: expected a string, got undefined'],
      [[{ ...entry, source: 'pod-a' }], 0, 'source: "pod-a" is not an IP address'],
      [[{ ...entry, source: 5 }], 0, 'source: number 5 is not an IP address'],
      [[{ ...entry, lastSeen: Number.NaN }], 0, 'lastSeen: expected a finite number, got number NaN'],
      [[{ ...entry, lastSeen: Number.NEGATIVE_INFINITY }], 0, 'lastSeen: expected a finite number, got number -Infinity'],
      [[{ ...entry, lastSeen: '0' }], 0, 'lastSeen: expected a finite number, got "0"'],
    ])('refuses the entries %j at [%d]', (recent, i, what) => {
      expect(refusal(checkOptions({ ...options, recent }))).toEqual(refused(`options.recent[${i}]`, what));
    });
  });

  it.each([[0], [-1], [1.5], [Date.UTC(2026, 0, 1)]])('takes now = %d', (now) => {
    expect(refusal(checkOptions({ ...options, now }))).toBe('accepted');
  });

  it.each([
    [Number.NaN, 'number NaN'],
    [Number.POSITIVE_INFINITY, 'number Infinity'],
    ['0', '"0"'],
    [null, 'null'],
  ])('refuses now = %s', (now, shown) => {
    expect(refusal(checkOptions({ ...options, now }))).toEqual(refused('options.now', `expected a finite number of milliseconds, got ${shown}`));
  });

  describe.each([['mark'], ['masqueradeMark']])('%s', (name) => {
    it.each([[0], [0x4000], [0xffffffff]])('takes %d', (m) => {
      expect(refusal(checkOptions({ ...options, [name]: m }))).toBe('accepted');
    });
    it.each([
      [-1, 'number -1'],
      [0x100000000, 'number 4294967296'],
      [0.5, 'number 0.5'],
      [Number.NaN, 'number NaN'],
      ['0x4000', '"0x4000"'],
      [null, 'null'],
    ])('refuses %s', (m, shown) => {
      expect(refusal(checkOptions({ ...options, [name]: m }))).toEqual(refused(`options.${name}`, `expected a 32-bit mark, got ${shown}`));
    });
  });

  it.each([['NEW'], ['ESTABLISHED'], ['RELATED'], ['INVALID'], ['UNTRACKED']])('takes the conntrack state %s', (conntrack) => {
    expect(refusal(checkOptions({ ...options, conntrack }))).toBe('accepted');
  });

  it.each([
    ['new', '"new"'],
    ['SNAT', '"SNAT"'],
    [1, 'number 1'],
    [null, 'null'],
  ])('refuses the conntrack state %j', (conntrack, shown) => {
    expect(refusal(checkOptions({ ...options, conntrack }))).toEqual(
      refused('options.conntrack', `unknown conntrack state ${shown} (expected NEW, ESTABLISHED, RELATED, INVALID, UNTRACKED)`),
    );
  });

  it.each([
    ['f', '"f"'],
    [null, 'null'],
    [{}, 'object'],
  ])('refuses onOutcome %j', (onOutcome, shown) => {
    expect(refusal(checkOptions({ ...options, onOutcome }))).toEqual(refused('options.onOutcome', `expected a function, got ${shown}`));
  });

  it('reports the first bad field in the order localAddresses, recent, now, masqueradeMark, mark, conntrack, onOutcome', () => {
    const bad = { localAddresses: [1], recent: [null], now: 'x', masqueradeMark: -1, mark: -1, conntrack: 'x', onOutcome: 'x' };
    const order = ['options.localAddresses[0]', 'options.recent[0]', 'options.now', 'options.masqueradeMark', 'options.mark', 'options.conntrack', 'options.onOutcome'];
    const fixes: Record<string, unknown>[] = [{ localAddresses: [] }, { recent: [] }, { now: 0 }, { masqueradeMark: 0 }, { mark: 0 }, { conntrack: 'NEW' }, { onOutcome: undefined }];
    let value: Record<string, unknown> = bad;
    const seen: string[] = [];
    for (const fix of fixes) {
      const r = refusal(checkOptions(value));
      seen.push(r === 'accepted' ? 'accepted' : r.field);
      value = { ...value, ...fix };
    }
    seen.push(refusal(checkOptions(value)) === 'accepted' ? 'accepted' : 'refused');
    expect(seen).toEqual([...order, 'accepted']);
  });
});

describe('checkFamily', () => {
  it.each([
    [undefined, 4],
    [null, 4],
    ['x', 4],
    [[6], 4],
    [{}, 4],
    [{ family: undefined }, 4],
    [{ family: 4 }, 4],
    [{ family: 6 }, 6],
  ])('reads %j as IPv%d', (value, family) => {
    expect(checkFamily(value)).toEqual({ ok: true, value: family });
  });

  it.each([
    [{ family: 5 }, 'number 5'],
    [{ family: '6' }, '"6"'],
    [{ family: 'IPv6' }, '"IPv6"'],
    [{ family: null }, 'null'],
  ])('refuses %j', (value, shown) => {
    expect(refusal(checkFamily(value))).toEqual(refused('options.family', `expected 4 or 6, got ${shown}`));
  });
});
