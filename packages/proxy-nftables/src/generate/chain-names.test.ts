// The names are upstream's: proxier_test.go TestOverallNFTablesRules (IPv4) and the IPv6
// kube-proxy ruleset of knftables' fake_test.go (TestFakeParseDump).
import { describe, expect, it } from 'vitest';
import { endpointNames, isAffinitySetName, isServiceChainName, serviceChainNames, servicePortChainNameBase } from './chain-names.js';
import { createHash } from 'node:crypto';
import { base32Std } from '@kubesvc/testkit';
import { CHAIN_NAME_BASE_LENGTH_MAX, hashAndTruncate } from './hash.js';

describe('service port chain names are upstream servicePortChainNameBase', () => {
  it.each([
    ['ns1', 'svc1', 'ULMVA6XW'],
    ['ns2', 'svc2', '42NFTM6N'],
    ['ns3', 'svc3', '4AT6LBPK'],
    ['ns4', 'svc4', 'LAUZTJTB'],
    ['ns5', 'svc5', 'HVFWP5L3'],
  ])('%s/%s:p80 hashes to %s', (namespace, name, hash) => {
    expect(servicePortChainNameBase(namespace, name, 'p80', 'tcp')).toBe(`${hash}-${namespace}/${name}/tcp/p80`);
    expect(serviceChainNames(namespace, name, 'p80', 'tcp')).toEqual({
      cluster: `service-${hash}-${namespace}/${name}/tcp/p80`,
      local: `local-${hash}-${namespace}/${name}/tcp/p80`,
      external: `external-${hash}-${namespace}/${name}/tcp/p80`,
      firewall: `firewall-${hash}-${namespace}/${name}/tcp/p80`,
    });
  });
});

describe('endpoint chain names are upstream servicePortEndpointChainNameBase', () => {
  it.each([
    ['ns1', 'svc1', '10.180.0.1', '5OJB2KTY'],
    ['ns2', 'svc2', '10.180.0.2', 'SGOXE6O3'],
    ['ns3', 'svc3', '10.180.0.3', 'UEIP74TE'],
    ['ns4', 'svc4', '10.180.0.4', 'UNZV3OEC'],
    ['ns4', 'svc4', '10.180.0.5', '5RFCDDV7'],
    ['ns5', 'svc5', '10.180.0.3', 'GTK6MW7G'],
  ])('%s/%s:p80 at %s:80 hashes to %s', (namespace, name, ip, hash) => {
    expect(endpointNames(namespace, name, 'p80', 'tcp', ip, 80)).toEqual({
      chain: `endpoint-${hash}-${namespace}/${name}/tcp/p80__${ip}/80`,
      affinitySet: `affinity-${hash}-${namespace}/${name}/tcp/p80__${ip}/80`,
    });
  });

  it('writes the colons of an IPv6 endpoint as dots', () => {
    expect(endpointNames('ns1', 'svc1', 'p80', 'tcp', 'fd00:10:180::1', 80).chain).toBe('endpoint-ZVRFLKHO-ns1/svc1/tcp/p80__fd00.10.180..1/80');
    expect(endpointNames('ns1', 'svc1', 'p80', 'tcp', 'fd00:10:180::2:1', 80).chain).toBe('endpoint-2CRNCTTE-ns1/svc1/tcp/p80__fd00.10.180..2.1/80');
  });
});

describe('the hash', () => {
  it('cuts a name longer than 240 bytes to 237 and three dots', () => {
    const long = hashAndTruncate('x'.repeat(300));
    expect(long.length).toBe(CHAIN_NAME_BASE_LENGTH_MAX);
    expect(long.endsWith('x...')).toBe(true);
    expect(hashAndTruncate('x'.repeat(231)).length).toBe(240);
  });

  it('tells service chains and affinity sets from the fixed ones', () => {
    expect(isServiceChainName('service-ULMVA6XW-ns1/svc1/tcp/p80')).toBe(true);
    expect(isServiceChainName('cluster-ips-check')).toBe(false);
    expect(isAffinitySetName('affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80')).toBe(true);
    expect(isAffinitySetName('cluster-ips')).toBe(false);
  });
});

// proxier_test.go Test_servicePortChainNameBase and Test_servicePortEndpointChainNameBase.
const LONG_NS = 'very-long-namespace-name-abcdefghijklmnopqrstuvwxyz0123456789xx';
const LONG_NAME = 'very-long-service-name-why-would-you-even-do-this-i-mean-really';
const LONG_PORT = 'port-443-providing-the-hypertext-transmission-protocol-with-tls';

describe('Test_servicePortChainNameBase', () => {
  it.each([
    ['simple', 'testing', 'service', 'http', 'tcp' as const, 'P4ZYZVCF-testing/service/tcp/http'],
    ['different port, different hash', 'testing', 'service', 'https', 'tcp' as const, 'LZBRENCP-testing/service/tcp/https'],
    ['max length', LONG_NS, LONG_NAME, LONG_PORT, 'sctp' as const, `KR6NACJP-${LONG_NS}/${LONG_NAME}/sctp/${LONG_PORT}`],
  ])('%s', (_name, namespace, name, portName, protocol, expected) => {
    expect(servicePortChainNameBase(namespace, name, portName, protocol)).toBe(expected);
  });
});

describe('Test_servicePortEndpointChainNameBase', () => {
  const long = `${LONG_NS}/${LONG_NAME}/sctp/${LONG_PORT}`;
  it.each([
    ['simple', 'testing', 'service', 'http', 'tcp' as const, '10.180.0.1', 80, 'JO2XBXZR-testing/service/tcp/http__10.180.0.1/80'],
    ['different endpoint, different hash', 'testing', 'service', 'http', 'tcp' as const, '10.180.0.2', 80, '5S6H3H22-testing/service/tcp/http__10.180.0.2/80'],
    ['ipv6', 'testing', 'service', 'http', 'tcp' as const, 'fd80:abcd:12::a1b2:c3d4:e5f6:9999', 80, 'U7E2ET36-testing/service/tcp/http__fd80.abcd.12..a1b2.c3d4.e5f6.9999/80'],
    ['max length without truncation', LONG_NS, LONG_NAME, LONG_PORT, 'sctp' as const, '1234:5678:9abc:def0::abc:1234', 443, `5YS7AFEA-${long}__1234.5678.9abc.def0..abc.1234/443`],
    ['truncated, 1', LONG_NS, LONG_NAME, LONG_PORT, 'sctp' as const, '1234:5678:9abc:def0::abcd:1234:5678', 443, `CI6C53Q3-${long}__1234.5678.9abc.def0..abcd.1234...`],
    [
      'truncated, 2 (different IP, which is not visible in the result)',
      LONG_NS,
      LONG_NAME,
      LONG_PORT,
      'sctp' as const,
      '1234:5678:9abc:def0::abcd:1234:8765',
      443,
      `2FLXFK6X-${long}__1234.5678.9abc.def0..abcd.1234...`,
    ],
  ])('%s', (_name, namespace, name, portName, protocol, ip, port, expected) => {
    expect(endpointNames(namespace, name, portName, protocol, ip, port).chain).toBe(`endpoint-${expected}`);
  });
});

describe('the chain-name hash takes the same path for every name', () => {
  it('gives base32(sha256(UTF-8 of the name)) for names across block boundaries, ASCII or not', () => {
    const general = (name: string): string => base32Std(createHash('sha256').update(name, 'utf8').digest()).slice(0, 8);
    for (let n = 0; n <= 200; n++) {
      for (const name of ['x'.repeat(n), 'é'.repeat(n)]) {
        expect(hashAndTruncate(name).slice(0, 8), `length ${n}`).toBe(general(name));
      }
    }
  });
});
