// INV-DOCTOR-TOTAL: whatever decodes as a dump, the doctor answers with findings and never
// throws. The loose schemas keep fields such as containers, containerStatuses and dnsConfig as
// they came, so a near miss of a real dump (a field of the wrong type, a null in a list) must
// be read around, not crash the checks or the controllers they run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { parse, stringify } from 'yaml';
import { expect } from 'vitest';
import { loadDump } from '../../dump/load-dump.js';
import { FIXTURES } from '../../run-bin.fixtures.js';
import { runDoctor } from './doctor.js';
import { pod, reportOf, service } from './doctor.fixtures.js';

const problems = parse(readFileSync(join(FIXTURES, 'doctor.yaml'), 'utf8')) as unknown;

test.prop([shapeMutantArb(problems)])('INV-DOCTOR-TOTAL: any mutant of the problems dump that decodes gets a report, never an exception', (mutant) => {
  const loaded = loadDump('mutant.yaml', stringify(mutant));
  if (!loaded.ok) return;
  const report = runDoctor(
    { dump: loaded.value, file: 'mutant.yaml' },
    { services: [], namespace: 'default', allNamespaces: true, includeInfo: true, dnsQuestion: { name: 'web.shop', pod: loaded.value.pods[0] ?? (pod('tools', 'x') as never) } },
  );
  expect(report.ok).toBe(true);
  for (const f of report.ok ? report.value.findings : []) expect(f.summary).not.toBe('');
});

test('INV-DOCTOR-TOTAL: nulls where the loose Pod schema keeps lists are read around', () => {
  const odd = pod('shop', 'odd', {
    labels: { app: 'odd' },
    ip: '10.244.1.1',
    ready: false,
    spec: { containers: [null, { name: 'app', ports: [null, { name: 'http', containerPort: 8080 }] }], dnsConfig: { options: [null, { name: 'ndots', value: '2' }], searches: 'x' } },
    status: { containerStatuses: [null, { name: 'app', state: { waiting: null, terminated: { reason: 'Error', exitCode: 'x' } } }] },
  });
  const report = reportOf([service('shop', 'odd', { clusterIP: '10.96.1.1', selector: { app: 'odd' }, ports: [{ port: 80, targetPort: 'http' }] }), odd], {
    dnsQuestion: { name: 'odd.shop', pod: odd as never },
  });
  expect(report.findings.find((f) => f.code === 'PodsNotReady')?.evidence).toEqual(['pod shop/odd: Ready=False; container app terminated: Error']);
  expect(report.findings.find((f) => f.code === 'TargetPortNotExposed')).toBeUndefined();
  expect(report.findings.find((f) => f.code === 'NdotsExpansion')?.evidence[0]).toBe('pod shop/odd: search shop.svc.cluster.local svc.cluster.local cluster.local; ndots:2');
});
