import { sendRaw } from '@kubesvc/testkit';
import { it } from 'vitest';
import { FUZZ_TOKEN, serviceViolations, startFuzzCluster, takeSnapshot } from './control-plane-fuzz.fixtures.js';
const CASES: [string, string, string, string][] = [
  ['PATCH', '/api/v1/namespaces/default/services/web', 'application/strategic-merge-patch+json', '{"spec":{"ports":[{"port":80,"__proto__":{"polluted":"yes"}}]}}'],
  ['POST', '/api/v1/namespaces/default/services', 'application/json', '{"apiVersion":"v1","kind":"Service","metadata":{"name":"fresh-new"},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080,"nodePort":-1}],"selector":{"app":"web"},"type":"ExternalName","externalName":"moved.example.com"}}'],
  ['PATCH', '/api/v1/namespaces/alpha/services/web', 'application/merge-patch+json', '{"spec":{"type":"ExternalName","externalName":"moved.example.com","clusterIP":"None"}}'],
  ['PATCH', '/api/v1/namespaces/beta/services/web', 'application/merge-patch+json', '{"spec":{"type":"ExternalName","externalName":"moved.example.com"}}'],
  ['PATCH', '/api/v1/namespaces/victim/services/web', 'application/json-patch+json', '[{"op":"move","from":"/metadata","path":"/metadata/annotations/m0"},{"op":"move","from":"/metadata/annotations/m0","path":"/metadata"}]'],
  ['PATCH', '/api/v1/namespaces/x/services/np', 'application/merge-patch+json', '{"spec":{"type":"ClusterIP"}}'],
  ['PATCH', '/api/v1/namespaces/x/services/web', 'application/merge-patch+json', '{"spec":{"type":"NodePort","ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080,"nodePort":30101}]}}'],
  ['PATCH', '/api/v1/namespaces/x/services/y', 'application/merge-patch+json', '{"spec":{"clusterIP":"10.96.1.5"}}'],
  ['POST', '/api/v1/namespaces/x/services', 'application/json', '{"apiVersion":"v1","kind":"Service","metadata":{"name":"oor"},"spec":{"clusterIP":"10.96.0.255","ports":[{"port":80}]}}'],
  ['DELETE', '/api/v1/namespaces/x/services/y/..', '', ''],
];
it('repro', { timeout: 120_000 }, async () => {
  const c = await startFuzzCluster();
  try {
    let viol = new Set(serviceViolations((await takeSnapshot(c.registry)).services));
    for (const [method, path, ct, body] of CASES) {
      const res = await sendRaw(c.host, c.port, { method, path, headers: { Authorization: `Bearer ${FUZZ_TOKEN}`, ...(ct ? { 'Content-Type': ct } : {}) }, ...(body ? { body } : {}) }, { timeoutMs: 30_000 });
      const v = serviceViolations((await takeSnapshot(c.registry)).services);
      console.log(`${method} ${path} ${body.slice(0, 120)}\n  -> ${res.status} ${res.text.slice(0, 300)}\n  new violations: ${JSON.stringify(v.filter((x) => !viol.has(x)))}\n  polluted: ${JSON.stringify(({} as any).polluted)} ${Object.getOwnPropertyNames(Object.prototype).length}`);
      viol = new Set(v);
    }
  } finally { await c.close(); }
});
