// The printers on records the cluster zone does not make (escapes, the root, several TXT
// strings), and the README's block of printed records. What dig itself prints for the
// zone's records is checked in src/node/dig-format.test.ts against the real dig.
// upstream: BIND lib/dns/name.c dns_name_totext, lib/dns/rdata.c txt_totext,
// lib/dns/masterdump.c indent.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatName, formatQuestion, formatRdata, formatRecord } from './format.js';
import type { DnsRecord } from './records.js';

describe('formatName', () => {
  it.each([
    ['', '.'],
    ['.', '.'],
    ['web.default.svc.cluster.local', 'web.default.svc.cluster.local.'],
    ['web.default.svc.cluster.local.', 'web.default.svc.cluster.local.'],
    ['Web.Default', 'Web.Default.'],
    // BIND escapes " ( ) ; \ @ $ with a backslash, and space, controls, DEL and non-ASCII bytes as \DDD.
    ['a"b(c)d;e\\f@g$h.example', 'a\\"b\\(c\\)d\\;e\\\\f@g\\$h.example.'.replace('@', '\\@')],
    ['a b\tc\u007f.example', 'a\\032b\\009c\\127.example.'],
    ['é.example', '\\195\\169.example.'],
  ])('%j → %s', (name, text) => {
    expect(formatName(name)).toBe(text);
  });
});

describe('formatRdata', () => {
  const txt = (data: string[]): DnsRecord => ({ name: 'x', type: 'TXT', ttl: 0, class: 'IN', data });
  it('quotes each TXT string and escapes " and \\ and non-printing bytes', () => {
    expect(formatRdata(txt(['1.1.0']))).toBe('"1.1.0"');
    expect(formatRdata(txt(['a b', 'say "hi"', 'back\\slash', 'tab\there', '']))).toBe('"a b" "say \\"hi\\"" "back\\\\slash" "tab\\009here" ""');
  });
  it('prints names in rdata absolute', () => {
    expect(formatRdata({ name: 'x', type: 'CNAME', ttl: 0, class: 'IN', data: 'example.org' })).toBe('example.org.');
    expect(formatRdata({ name: 'x', type: 'SRV', ttl: 0, class: 'IN', data: { priority: 0, weight: 100, port: 53, target: '' } })).toBe('0 100 53 .');
  });
});

describe('columns', () => {
  it('tabs to 24, 32, 40 and 48; past a column, one space, or a tab when one past is a tab stop', () => {
    const a = (name: string): DnsRecord => ({ name, type: 'A', ttl: 5, class: 'IN', data: '10.0.0.1' });
    // 14 characters: two tabs reach 24.
    expect(formatRecord(a('cluster.local'))).toBe('cluster.local.\t\t5\tIN\tA\t10.0.0.1');
    // 23 characters: one tab reaches 24.
    expect(formatRecord(a('abcdefghij.klmnopqrstu'))).toBe('abcdefghij.klmnopqrstu.\t5\tIN\tA\t10.0.0.1');
    // 24 characters: already there, one space.
    expect(formatRecord(a('abcdefghij.klmnopqrstuv'))).toBe('abcdefghij.klmnopqrstuv. 5\tIN\tA\t10.0.0.1');
    // 31 characters: one tab reaches 32, so the TTL ends at 33 and the class gets one space.
    expect(formatRecord(a('abcdefghijklmnopqrst.uvwxyz.ab'))).toBe('abcdefghijklmnopqrst.uvwxyz.ab.\t5 IN\tA\t10.0.0.1');
    // 55 characters: past 24, and one past is the tab stop 56, so a tab; then single spaces.
    expect(formatRecord(a(`${'a'.repeat(49)}.abcd`))).toBe(`${'a'.repeat(49)}.abcd.\t5 IN A 10.0.0.1`);
    expect(formatQuestion({ name: 'cluster.local', type: 'soa' })).toBe(';cluster.local.\t\t\tIN\tSOA');
  });
});

it("the README's printed records are formatRecord's", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Printing answers'));
  const block = /```\n([\s\S]*?)```\n/.exec(section)?.[1] ?? '';
  const soa: DnsRecord = {
    name: 'cluster.local',
    type: 'SOA',
    ttl: 5,
    class: 'IN',
    data: { mname: 'ns.dns.cluster.local', rname: 'hostmaster.cluster.local', serial: 1, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
  };
  const srv: DnsRecord = { name: '_pg._tcp.db.shop.svc.cluster.local', type: 'SRV', ttl: 5, class: 'IN', data: { priority: 0, weight: 50, port: 5432, target: 'db-0.db.shop.svc.cluster.local' } };
  const txt: DnsRecord = { name: 'dns-version.cluster.local', type: 'TXT', ttl: 28800, class: 'IN', data: ['1.1.0'] };
  expect(block).toBe(`${[soa, srv, txt].map(formatRecord).join('\n')}\n`);
});
