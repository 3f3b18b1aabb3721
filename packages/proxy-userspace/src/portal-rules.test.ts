// The portal rules, argument by argument, as upstream's proxier.go builds them.
import type { Result, Service } from '@kubesvc/api-types';
import type { ErrUserspaceInput } from './errors.js';
import { describe, expect, it } from 'vitest';
import {
  containerNodePortArgs,
  containerPortalArgs,
  hostNodePortArgs,
  hostPortalArgs,
  nonLocalNodePortArgs,
  portalRulesRestoreText,
  servicePortals,
  type IptablesRule,
} from './portal-rules.js';

const spn = { namespace: 'default', name: 'web', port: 'http' };
const any = { listenIP: '0.0.0.0', hostIP: '192.168.1.10' };
const bound = { listenIP: '10.0.0.5', hostIP: '192.168.1.10' };
const common = ['-m', 'comment', '--comment', 'default/web:http', '-p', 'tcp', '-m', 'tcp', '--dport', '80'];

describe('rule arguments', () => {
  it('container portal: REDIRECT when listening everywhere, DNAT to the listen IP otherwise', () => {
    expect(containerPortalArgs('10.96.0.10', false, false, 80, 'TCP', any, 36000, spn)).toEqual([
      ...common, '-d', '10.96.0.10/32', '-j', 'REDIRECT', '--to-ports', '36000',
    ]);
    expect(containerPortalArgs('10.96.0.10', false, false, 80, 'TCP', bound, 36000, spn)).toEqual([
      ...common, '-d', '10.96.0.10/32', '-j', 'DNAT', '--to-destination', '10.0.0.5:36000',
    ]);
    expect(containerPortalArgs('1.2.3.4', true, false, 80, 'TCP', any, 36000, spn)).toEqual([
      ...common, '-d', '1.2.3.4/32', '-m', 'physdev', '!', '--physdev-is-in', '-j', 'REDIRECT', '--to-ports', '36000',
    ]);
    expect(containerPortalArgs('1.2.3.4', false, true, 80, 'TCP', any, 36000, spn)).toEqual([
      ...common, '-d', '1.2.3.4/32', '-m', 'addrtype', '--dst-type', 'LOCAL', '-j', 'REDIRECT', '--to-ports', '36000',
    ]);
  });

  it('host portal: always DNAT, to the host IP when listening everywhere', () => {
    expect(hostPortalArgs('10.96.0.10', false, 80, 'TCP', any, 36000, spn)).toEqual([
      ...common, '-d', '10.96.0.10/32', '-j', 'DNAT', '--to-destination', '192.168.1.10:36000',
    ]);
    expect(hostPortalArgs('10.96.0.10', true, 80, 'TCP', bound, 36000, spn)).toEqual([
      ...common, '-d', '10.96.0.10/32', '-m', 'addrtype', '--dst-type', 'LOCAL', '-j', 'DNAT', '--to-destination', '10.0.0.5:36000',
    ]);
  });

  it('node ports: no destination match; the non-local filter rule matches the proxy port', () => {
    const udp = { namespace: 'kube-system', name: 'dns', port: '' };
    const c = ['-m', 'comment', '--comment', 'kube-system/dns', '-p', 'udp', '-m', 'udp', '--dport'];
    expect(containerNodePortArgs(30053, 'UDP', any, 41000, udp)).toEqual([...c, '30053', '-j', 'REDIRECT', '--to-ports', '41000']);
    expect(hostNodePortArgs(30053, 'UDP', any, 41000, udp)).toEqual([...c, '30053', '-j', 'DNAT', '--to-destination', '192.168.1.10:41000']);
    expect(nonLocalNodePortArgs('UDP', 41000, udp)).toEqual([...c, '41000', '-m', 'state', '--state', 'NEW', '-j', 'ACCEPT']);
  });

  it('IPv6: /128 destinations and bracketed DNAT targets', () => {
    const v6 = { listenIP: 'fd00::5', hostIP: 'fd00::1' };
    expect(containerPortalArgs('fd00:96::000a', false, false, 80, 'TCP', v6, 36000, spn)).toEqual([
      ...common, '-d', 'fd00:96::a/128', '-j', 'DNAT', '--to-destination', '[fd00::5]:36000',
    ]);
    expect(hostPortalArgs('fd00:96::a', false, 80, 'TCP', { listenIP: '::', hostIP: 'fd00::1' }, 36000, spn)).toEqual([
      ...common, '-d', 'fd00:96::a/128', '-j', 'DNAT', '--to-destination', '[fd00::1]:36000',
    ]);
  });
});

const service: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name: 'web' },
  spec: {
    type: 'LoadBalancer',
    clusterIP: '10.96.0.10',
    externalIPs: ['1.2.3.4'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }],
  },
  status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }] } },
};

function rulesOf(r: Result<IptablesRule[], ErrUserspaceInput>): IptablesRule[] {
  if (!r.ok) throw new Error(`servicePortals refused the fixture: ${JSON.stringify(r.error)}`);
  return r.value;
}

describe('servicePortals and the restore text', () => {
  it('cluster IP, external IP (three rules), load-balancer IP, then node port, in upstream order', () => {
    const text = portalRulesRestoreText(rulesOf(servicePortals(service, (n) => (n === 'http' ? 36000 : undefined), any)), { jumps: true });
    expect(text).toBe(
      [
        '*nat',
        ':KUBE-PORTALS-CONTAINER - [0:0]',
        ':KUBE-PORTALS-HOST - [0:0]',
        ':KUBE-NODEPORT-CONTAINER - [0:0]',
        ':KUBE-NODEPORT-HOST - [0:0]',
        '-I PREROUTING -m comment --comment "handle ClusterIPs; NOTE: this must be before the NodePort rules" -j KUBE-PORTALS-CONTAINER',
        '-I OUTPUT -m comment --comment "handle ClusterIPs; NOTE: this must be before the NodePort rules" -j KUBE-PORTALS-HOST',
        '-A PREROUTING -m addrtype --dst-type LOCAL -m comment --comment "handle service NodePorts; NOTE: this must be the last rule in the chain" -j KUBE-NODEPORT-CONTAINER',
        '-A OUTPUT -m addrtype --dst-type LOCAL -m comment --comment "handle service NodePorts; NOTE: this must be the last rule in the chain" -j KUBE-NODEPORT-HOST',
        '-A KUBE-PORTALS-CONTAINER -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 10.96.0.10/32 -j REDIRECT --to-ports 36000',
        '-A KUBE-PORTALS-HOST -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 10.96.0.10/32 -j DNAT --to-destination 192.168.1.10:36000',
        '-A KUBE-PORTALS-CONTAINER -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 1.2.3.4/32 -m physdev ! --physdev-is-in -j REDIRECT --to-ports 36000',
        '-A KUBE-PORTALS-CONTAINER -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 1.2.3.4/32 -m addrtype --dst-type LOCAL -j REDIRECT --to-ports 36000',
        '-A KUBE-PORTALS-HOST -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 1.2.3.4/32 -m addrtype --dst-type LOCAL -j DNAT --to-destination 192.168.1.10:36000',
        '-A KUBE-PORTALS-CONTAINER -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 5.6.7.8/32 -j REDIRECT --to-ports 36000',
        '-A KUBE-PORTALS-HOST -m comment --comment default/web:http -p tcp -m tcp --dport 80 -d 5.6.7.8/32 -j DNAT --to-destination 192.168.1.10:36000',
        '-A KUBE-NODEPORT-CONTAINER -m comment --comment default/web:http -p tcp -m tcp --dport 30080 -j REDIRECT --to-ports 36000',
        '-A KUBE-NODEPORT-HOST -m comment --comment default/web:http -p tcp -m tcp --dport 30080 -j DNAT --to-destination 192.168.1.10:36000',
        'COMMIT',
        '*filter',
        ':KUBE-NODEPORT-NON-LOCAL - [0:0]',
        '-I INPUT -m comment --comment "Ensure that non-local NodePort traffic can flow" -j KUBE-NODEPORT-NON-LOCAL',
        '-A KUBE-NODEPORT-NON-LOCAL -m comment --comment default/web:http -p tcp -m tcp --dport 36000 -m state --state NEW -j ACCEPT',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('headless, IP-less and ExternalName services get no portals', () => {
    const at = () => 36000;
    for (const spec of [{ clusterIP: 'None' }, {}, { type: 'ExternalName' as const, clusterIP: '10.96.0.11' }]) {
      expect(servicePortals({ ...service, spec: { ...spec, ports: [{ port: 80 }] } }, at, any)).toEqual({ ok: true, value: [] });
    }
  });
});
