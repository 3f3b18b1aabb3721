// Bench suite "proxy-iptables": generateRules for clusters of ClusterIP services with ten
// endpoints each (1,000 and 10,000 services: upstream's BenchmarkSyncProxyRules sizes), the
// normal form of the 1,000-service text, and one endpoint chain name (SHA-256 + base32).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointChainName, generateRules, normalizeRestoreText, proxierConfig } from '@kubesvc/proxy-iptables';
import type { BenchSuite, BenchTask } from './harness.js';

const ENDPOINTS = 10;

function cluster(services: number): { services: Service[]; slices: EndpointSlice[] } {
  const out: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < services; i++) {
    const namespace = `ns-${i % 100}`;
    const name = `svc-${i}`;
    out.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace, name },
      spec: { clusterIP: `10.96.${(i >> 8) & 255}.${i & 255}`, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
    });
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace, name: `${name}-abcde`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: ENDPOINTS }, (_, k) => ({ addresses: [`10.${k + 1}.${(i >> 8) & 255}.${i & 255}`] })),
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
  }
  return { services: out, slices };
}

const config = proxierConfig({ nodeName: 'node-1', localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } });

function generateTask(services: number): BenchTask {
  let input = cluster(0);
  let bytes = 0;
  let natRules = 0;
  return {
    name: `generateRules ${services}x${ENDPOINTS}`,
    setup: () => {
      input = cluster(services);
    },
    fn: () => {
      const result = generateRules(input.services, input.slices, config);
      bytes = result.restoreText.length;
      natRules = result.stats.natRules;
    },
    metrics: () => ({ bytes, natRules }),
  };
}

export function proxyIptablesSuite(): BenchSuite {
  let text = '';
  return {
    name: 'proxy-iptables',
    description: 'kube-proxy iptables rule generation: full syncs of ClusterIP clusters, the normal form, chain names',
    tasks: [
      generateTask(1000),
      generateTask(10000),
      {
        name: 'normalizeRestoreText 1000x10',
        setup: () => {
          const input = cluster(1000);
          text = generateRules(input.services, input.slices, config).restoreText;
        },
        fn: () => normalizeRestoreText(text),
      },
      { name: 'endpointChainName', fn: () => endpointChainName('ns-1/svc-1:http', 'tcp', '10.1.0.1:8080') },
    ],
  };
}
