// kubeProxyVersion '1.8': the text kube-proxy 1.8 wrote, checked against the best-known
// published iptables-save output of that era ("Demystifying kube-proxy", December 2017:
// default/kubernetes:https, three endpoints 172.16.0.11-13:6443, ClusterIP 192.168.255.1,
// ClientIP affinity with the default timeout 10800) and against v1.8's proxier.go.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { generateRules } from './backend.js';
import { validConfig } from './proxier-config.fixtures.js';
import { iptablesSaveView } from './save/save-view.js';

const kubernetes: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name: 'kubernetes' },
  spec: {
    clusterIP: '192.168.255.1',
    ports: [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }],
    sessionAffinity: 'ClientIP',
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
  },
};
const masters: EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'default', name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
  addressType: 'IPv4',
  endpoints: ['172.16.0.11', '172.16.0.12', '172.16.0.13'].map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
};

// The article's lines, verbatim (iptables-save | grep, so in no particular order).
const ARTICLE = [
  ':KUBE-SEP-23Y66C2VAJ3WDEMI - [0:0]',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -s 172.16.0.11/32 -m comment --comment "default/kubernetes:https" -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -p tcp -m comment --comment "default/kubernetes:https" -m recent --set --name KUBE-SEP-23Y66C2VAJ3WDEMI --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 172.16.0.11:6443',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-23Y66C2VAJ3WDEMI --mask 255.255.255.255 --rsource -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m statistic --mode random --probability 0.33332999982 -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]',
  '-A KUBE-SERVICES -d 192.168.255.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-47TYMEKETDMXSVAN --mask 255.255.255.255 --rsource -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-CZKGMRCAIW3ENCXY --mask 255.255.255.255 --rsource -j KUBE-SEP-CZKGMRCAIW3ENCXY',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -j KUBE-SEP-CZKGMRCAIW3ENCXY',
];

function legacySaveLines(version: '1.8' | '1.31'): string[] {
  const { restoreText } = generateRules([kubernetes], [masters], validConfig({ nodeName: 'node-1', kubeProxyVersion: version }));
  const view = iptablesSaveView(restoreText, { family: 4, backend: 'legacy' });
  if (!view.ok) throw new Error(view.error.message);
  return view.value.split('\n');
}

describe("kubeProxyVersion '1.8' reproduces the 2017 kube-proxy", () => {
  it('prints every line of the 2017 article, in the legacy iptables-save view', () => {
    const lines = new Set(legacySaveLines('1.8'));
    const missing = ARTICLE.filter((line) => !lines.has(line));
    expect(missing).toEqual([]);
  });

  it('the v1.31 default does not: its jump comments name the endpoint and its probabilities have ten digits', () => {
    const lines = legacySaveLines('1.31');
    expect(lines).toContain(
      '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https -> 172.16.0.11:6443" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-23Y66C2VAJ3WDEMI',
    );
    expect(ARTICLE.filter((line) => lines.includes(line)).length).toBeLessThan(ARTICLE.length);
  });

  it("writes v1.8's whole restore text: no KUBE-FORWARD, KUBE-MARK-MASQ with --set-xmark, /32 destinations, the masquerade rule in KUBE-SERVICES", () => {
    const config = validConfig({ nodeName: 'node-1', kubeProxyVersion: '1.8', localDetector: { kind: 'cidr', cidr: '172.16.0.0/16' } });
    const { restoreText } = generateRules([kubernetes], [masters], config);
    expect(restoreText).toBe(
      [
        '*filter',
        ':KUBE-SERVICES - [0:0]',
        'COMMIT',
        '*nat',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-NODEPORTS - [0:0]',
        ':KUBE-POSTROUTING - [0:0]',
        ':KUBE-MARK-MASQ - [0:0]',
        ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]',
        ':KUBE-SEP-23Y66C2VAJ3WDEMI - [0:0]',
        ':KUBE-SEP-47TYMEKETDMXSVAN - [0:0]',
        ':KUBE-SEP-CZKGMRCAIW3ENCXY - [0:0]',
        '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -m mark --mark 0x00004000/0x00004000 -j MASQUERADE',
        '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x00004000/0x00004000',
        '-A KUBE-SERVICES -m comment --comment "default/kubernetes:https cluster IP" -m tcp -p tcp -d 192.168.255.1/32 --dport 443 ! -s 172.16.0.0/16 -j KUBE-MARK-MASQ',
        '-A KUBE-SERVICES -m comment --comment "default/kubernetes:https cluster IP" -m tcp -p tcp -d 192.168.255.1/32 --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-23Y66C2VAJ3WDEMI --rcheck --seconds 10800 --reap -j KUBE-SEP-23Y66C2VAJ3WDEMI',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-47TYMEKETDMXSVAN --rcheck --seconds 10800 --reap -j KUBE-SEP-47TYMEKETDMXSVAN',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-CZKGMRCAIW3ENCXY --rcheck --seconds 10800 --reap -j KUBE-SEP-CZKGMRCAIW3ENCXY',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m statistic --mode random --probability 0.33333 -j KUBE-SEP-23Y66C2VAJ3WDEMI',
        '-A KUBE-SEP-23Y66C2VAJ3WDEMI -m comment --comment default/kubernetes:https -s 172.16.0.11/32 -j KUBE-MARK-MASQ',
        '-A KUBE-SEP-23Y66C2VAJ3WDEMI -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-23Y66C2VAJ3WDEMI --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.11:6443',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m statistic --mode random --probability 0.50000 -j KUBE-SEP-47TYMEKETDMXSVAN',
        '-A KUBE-SEP-47TYMEKETDMXSVAN -m comment --comment default/kubernetes:https -s 172.16.0.12/32 -j KUBE-MARK-MASQ',
        '-A KUBE-SEP-47TYMEKETDMXSVAN -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-47TYMEKETDMXSVAN --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.12:6443',
        '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -j KUBE-SEP-CZKGMRCAIW3ENCXY',
        '-A KUBE-SEP-CZKGMRCAIW3ENCXY -m comment --comment default/kubernetes:https -s 172.16.0.13/32 -j KUBE-MARK-MASQ',
        '-A KUBE-SEP-CZKGMRCAIW3ENCXY -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-CZKGMRCAIW3ENCXY --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.13:6443',
        '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });
});
