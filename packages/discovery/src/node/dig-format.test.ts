// formatRecord / formatQuestion / formatMessage against the real dig: the DNS server on
// 127.0.0.1 answers dig, and dig's sections must be, byte for byte (tabs included), what the
// printers make of resolve()'s answer to the same question.
import { execFile } from 'node:child_process';
import type { Endpoints, Service } from '@kubesvc/api-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZone, formatMessage, formatQuestion, formatRecord, resolve, type Question, type Zone } from '../index.js';
import { startDnsServer, type DnsServer } from './dns-server.js';

function digOutput(server: DnsServer, name: string, type: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    // Async: the server answers from this process, so the event loop must keep running.
    execFile('dig', [`@${server.host}`, '-p', String(server.port), '+time=2', '+tries=1', name, type], { encoding: 'utf8', timeout: 15_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`dig failed: ${error.message}\n${stdout}${stderr}`));
      else resolvePromise(stdout);
    });
  });
}

/** The lines of one of dig's sections (`;; ANSWER SECTION:` up to the blank line). */
function section(out: string, title: string): string[] {
  const body = new RegExp(`^;; ${title} SECTION:\\n([\\s\\S]*?)\\n\\n`, 'm').exec(out)?.[1];
  return body === undefined ? [] : body.split('\n');
}

const service = (name: string, spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec });
const services = [
  service('web', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20', 'fd00::20'], ipFamilies: ['IPv4', 'IPv6'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
  service('db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }] }),
  service('a-service-with-a-rather-long-name', { clusterIP: '10.96.0.21', ports: [{ port: 443, protocol: 'TCP' }] }),
  // Owners of 23, 24, 31 and 32 characters (`<name>.a.svc.cluster.local.`), either side of the columns.
  ...['abc', 'abcd', 'abcdefghijk', 'abcdefghijkl'].map((name, i): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'a' },
    spec: { clusterIP: `10.96.1.${i + 1}`, ports: [{ port: 80, protocol: 'TCP' }] },
  })),
];
const db: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'db', namespace: 'default' },
  subsets: [{ addresses: [{ ip: '10.244.1.7', hostname: 'db-0' }, { ip: 'fd00:10:244::8' }], ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }] }],
};

let server: DnsServer | undefined;
let zone: Zone;
beforeAll(async () => {
  const built = buildZone(services, [db], [], { serial: 2024 });
  if (!built.ok) throw new Error(built.error.message);
  zone = built.value;
  server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
});
afterAll(async () => {
  await server?.close();
});

const questions: (Question & { readonly why: string })[] = [
  { name: 'web.default.svc.cluster.local', type: 'A', why: 'A' },
  { name: 'web.default.svc.cluster.local', type: 'AAAA', why: 'AAAA' },
  { name: '_pg._tcp.db.default.svc.cluster.local', type: 'SRV', why: 'SRV with A and AAAA in the additional section' },
  { name: '7.1.244.10.in-addr.arpa', type: 'PTR', why: 'PTR' },
  { name: '8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.4.4.2.0.0.1.0.0.0.0.d.f.ip6.arpa', type: 'PTR', why: 'PTR under ip6.arpa' },
  { name: 'dns-version.cluster.local', type: 'TXT', why: 'TXT, quoted' },
  { name: 'cluster.local', type: 'SOA', why: 'SOA at the apex' },
  { name: 'cluster.local', type: 'NS', why: 'NS' },
  { name: 'nothing.default.svc.cluster.local', type: 'A', why: 'NXDOMAIN with the SOA' },
  { name: 'web.default.svc.cluster.local', type: 'TXT', why: 'NODATA with the SOA' },
  { name: 'a-service-with-a-rather-long-name.default.svc.cluster.local', type: 'A', why: 'an owner past the TTL column' },
  { name: 'Web.Default.SVC.cluster.local', type: 'A', why: 'letter case as asked' },
  ...['abc', 'abcd', 'abcdefghijk', 'abcdefghijkl'].map((name) => ({ name: `${name}.a.svc.cluster.local`, type: 'A', why: `an owner of ${name.length + 20} characters` })),
  { name: '1.1.96.10.in-addr.arpa', type: 'PTR', why: 'a question of 23 characters' },
  { name: 'a\\(b\\;c\\032d\\\\.default.svc.cluster.local', type: 'A', why: 'escaped characters in a name' },
];

describe('formatRecord and formatMessage print what dig prints', () => {
  it.each(questions)('$why: $name $type', async (q) => {
    if (server === undefined) throw new Error('no server');
    const out = await digOutput(server, q.name, q.type);
    // dig reads its argument as presentation text; resolve() gets the name as the wire carries it.
    const wireName = q.name.replace(/\\(\d{3})/g, (_, d: string) => String.fromCharCode(Number(d))).replace(/\\(.)/g, '$1');
    const resolution = resolve(zone, { name: wireName, type: q.type });
    expect(out).toContain(`status: ${resolution.rcode},`);
    expect(section(out, 'QUESTION')).toStrictEqual([formatQuestion({ name: wireName, type: q.type })]);
    expect(section(out, 'ANSWER')).toStrictEqual(resolution.answer.map(formatRecord));
    expect(section(out, 'AUTHORITY')).toStrictEqual(resolution.authority.map(formatRecord));
    expect(section(out, 'ADDITIONAL')).toStrictEqual(resolution.additional.map(formatRecord));
    // formatMessage's sections are dig's, from the question to the statistics.
    const digBody = out.slice(out.indexOf(';; QUESTION SECTION:'), out.indexOf(';; Query time:')).trimEnd();
    const message = formatMessage({ name: wireName, type: q.type }, resolution);
    expect(message.slice(message.indexOf(';; QUESTION SECTION:')).trimEnd()).toBe(digBody);
    expect(message.split('\n')[0]).toBe(`;; ->>HEADER<<- opcode: QUERY, status: ${resolution.rcode}`);
  });

  it('the cases cover every record type the printer formats', async () => {
    const types = new Set(questions.flatMap((q) => {
      const r = resolve(zone, { name: q.name, type: q.type });
      return [...r.answer, ...r.authority, ...r.additional].map((a) => a.type);
    }));
    expect([...types].sort()).toStrictEqual(['A', 'AAAA', 'NS', 'PTR', 'SOA', 'SRV', 'TXT']);
  });
});
