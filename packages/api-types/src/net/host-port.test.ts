import { describe, expect, test } from 'vitest';
import { joinHostPort, splitHostPort } from './host-port.js';

describe('joinHostPort, as net.JoinHostPort', () => {
  test.each([
    ['::1', 80, '[::1]:80'],
    ['2001:db8::1', '443', '[2001:db8::1]:443'],
    ['fe80::1%eth0', 80, '[fe80::1%eth0]:80'],
    ['10.0.0.1', 6443, '10.0.0.1:6443'],
    ['kubernetes.default', 'https', 'kubernetes.default:https'],
    ['', 80, ':80'],
    ['10.0.0.1', '', '10.0.0.1:'],
  ])('(%j, %j) is %j', (host, port, want) => {
    expect(joinHostPort(host, port)).toBe(want);
  });
});

// Go src/net/ipsock_test.go splitJoinTests and splitFailureTests.
describe('splitHostPort, as net.SplitHostPort', () => {
  test.each([
    ['www.google.com:80', 'www.google.com', '80'],
    ['127.0.0.1:1234', '127.0.0.1', '1234'],
    ['[::1]:80', '::1', '80'],
    ['[fe80::1%lo0]:80', 'fe80::1%lo0', '80'],
    ['localhost%lo0:80', 'localhost%lo0', '80'],
    ['[localhost%lo0]:80', 'localhost%lo0', '80'],
    [':80', '', '80'],
    ['[::1]:', '::1', ''],
    ['[]:80', '', '80'],
    ['host:', 'host', ''],
  ])('%j is host %j, port %j', (hostport, host, port) => {
    expect(splitHostPort(hostport)).toEqual({ ok: true, value: { host, port } });
  });

  test.each([
    ['www.google.com', 'address www.google.com: missing port in address'],
    ['127.0.0.1', 'address 127.0.0.1: missing port in address'],
    ['[::1]', 'address [::1]: missing port in address'],
    ['[fe80::1%lo0]', 'address [fe80::1%lo0]: missing port in address'],
    ['[localhost%lo0]', 'address [localhost%lo0]: missing port in address'],
    ['localhost%lo0', 'address localhost%lo0: missing port in address'],
    ['::1', 'address ::1: too many colons in address'],
    ['fe80::1%lo0', 'address fe80::1%lo0: too many colons in address'],
    ['fe80::1%lo0:80', 'address fe80::1%lo0:80: too many colons in address'],
    ['[::1', "address [::1: missing ']' in address"],
    ['[::1]x:80', 'address [::1]x:80: missing port in address'],
    ['[::1]:80:90', 'address [::1]:80:90: too many colons in address'],
    ['[foo:bar]', 'address [foo:bar]: missing port in address'],
    ['[foo:bar]baz', 'address [foo:bar]baz: missing port in address'],
    ['[foo]bar:baz', 'address [foo]bar:baz: missing port in address'],
    ['[foo]:[bar]:baz', 'address [foo]:[bar]:baz: too many colons in address'],
    ['[foo]:[bar]baz', "address [foo]:[bar]baz: unexpected '[' in address"],
    ['foo[bar]:baz', "address foo[bar]:baz: unexpected '[' in address"],
    ['foo]bar:baz', "address foo]bar:baz: unexpected ']' in address"],
    ['', 'missing port in address'],
  ])('%j fails: %s', (hostport, error) => {
    expect(splitHostPort(hostport)).toEqual({ ok: false, error: { _tag: 'ErrAddr', message: error } });
  });

  test("a ']' at the very start is unexpected, as Go looks from index 0", () => {
    expect(splitHostPort(']:80')).toEqual({ ok: false, error: { _tag: 'ErrAddr', message: "address ]:80: unexpected ']' in address" } });
  });

  test('split undoes join for IPv4, IPv6 and names', () => {
    for (const host of ['10.0.0.1', '::1', '2001:db8::1', 'example.com', 'fe80::1%eth0']) {
      expect(splitHostPort(joinHostPort(host, 8080))).toEqual({ ok: true, value: { host, port: '8080' } });
    }
  });
});
