// The doctor as a whole: a healthy dump yields no finding, the Services in scope, the order of
// the findings, and the text and JSON reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDump } from '../../dump/load-dump.js';
import { FIXTURES } from '../../run-bin.fixtures.js';
import { doctorData, formatDoctorText, hasError, runDoctor, sortFindings } from './doctor.js';
import { ALL, contextOf, node, pod, reportOf, service } from './doctor.fixtures.js';
import type { Finding } from './finding.js';

function fixture(name: string) {
  const loaded = loadDump(name, readFileSync(join(FIXTURES, name), 'utf8'));
  if (!loaded.ok) throw new Error(loaded.error.message);
  return { dump: loaded.value, file: name };
}

describe('runDoctor', () => {
  it('the healthy dump yields no finding, in every namespace', () => {
    const report = runDoctor(fixture('doctor-healthy.yaml'), ALL);
    expect(report.ok && report.value.findings).toEqual([]);
    expect(report.ok && report.value.services).toEqual(['default/kubernetes', 'default/web']);
    expect(report.ok && report.value.notices).toEqual([]);
  });

  it('with --include-info, the healthy dump yields only info findings', () => {
    const report = runDoctor(fixture('doctor-healthy.yaml'), { ...ALL, includeInfo: true });
    expect(report.ok && report.value.findings.map((f) => `${f.service} ${f.severity} ${f.code}`)).toEqual([
      'default/kubernetes info ClusterIPNoPing',
      'default/web info ClusterIPNoPing',
    ]);
  });

  it('the problems dump: each Service of shop with its findings, errors first', () => {
    const report = runDoctor(fixture('doctor.yaml'), { ...ALL, allNamespaces: false, namespace: 'shop' });
    expect(report.ok && report.value.findings.map((f) => `${f.service} ${f.severity} ${f.code}`)).toEqual([
      'shop/api warning PodsNotReady',
      'shop/api note TargetPortNotExposed',
      'shop/cart error TargetPortNotExposed',
      'shop/db error HeadlessNameMissing',
      'shop/edge warning EndpointsDisagree',
      'shop/edge warning NoLocalEndpoints',
      'shop/edge note AffinityTimeoutShort',
      'shop/legacy error EndpointsDisagree',
      'shop/web error SelectorMatchesNoPod',
    ]);
  });

  it('named Services only; a name the namespace has not is refused', () => {
    const context = fixture('doctor.yaml');
    const named = runDoctor(context, { ...ALL, allNamespaces: false, namespace: 'shop', services: ['edge'] });
    expect(named.ok && named.value.services).toEqual(['shop/edge']);
    const missing = runDoctor(context, { ...ALL, allNamespaces: false, namespace: 'default', services: ['edge'] });
    expect(!missing.ok && missing.error.message).toBe('doctor.yaml: no Service "edge" in namespace default');
  });

  it('a dump without Pods: the pod checks are skipped, and said so', () => {
    const report = reportOf([node('node-a', '192.168.10.1'), service('shop', 'web', { clusterIP: '10.96.1.10', selector: { app: 'web' }, ports: [{ port: 80 }] })]);
    expect(report.findings).toEqual([]);
    expect(report.notices).toEqual(['dump.yaml holds no Pods: the selector, pod and endpoint checks were skipped']);
  });
});

const finding = (service: string, severity: Finding['severity'], code: Finding['code']): Finding => ({
  code,
  severity,
  service,
  summary: `${code} summary`,
  evidence: [`${code} evidence`],
  reason: `${code} reason`,
  command: `${code} command`,
});

describe('sortFindings and the reports', () => {
  it('by Service, then severity, then the checklist order', () => {
    const sorted = sortFindings([
      finding('b/x', 'note', 'AffinityTimeoutShort'),
      finding('a/y', 'warning', 'EndpointsDisagree'),
      finding('a/y', 'error', 'TargetPortNotExposed'),
      finding('a/y', 'error', 'SelectorMatchesNoPod'),
    ]);
    expect(sorted.map((f) => `${f.service} ${f.code}`)).toEqual(['a/y SelectorMatchesNoPod', 'a/y TargetPortNotExposed', 'a/y EndpointsDisagree', 'b/x AffinityTimeoutShort']);
  });

  it('text: a block per Service, problems then notes, "no problem found" for a healthy one', () => {
    const report = { services: ['a/ok', 'a/y'], findings: [finding('a/y', 'error', 'SelectorMatchesNoPod'), finding('a/y', 'note', 'AffinityTimeoutShort')], notices: [] };
    expect(formatDoctorText(report)).toBe(
      [
        'Service a/ok',
        '  no problem found',
        '',
        'Service a/y',
        '  error   SelectorMatchesNoPod: SelectorMatchesNoPod summary',
        '            SelectorMatchesNoPod evidence',
        '            why: SelectorMatchesNoPod reason',
        '            more: SelectorMatchesNoPod command',
        '  notes:',
        '  note    AffinityTimeoutShort: AffinityTimeoutShort summary',
        '            AffinityTimeoutShort evidence',
        '            why: AffinityTimeoutShort reason',
        '            more: AffinityTimeoutShort command',
        '',
        '2 Services checked: 1 error, 0 warnings, 1 note',
        '',
      ].join('\n'),
    );
    expect(hasError(report)).toBe(true);
    expect(hasError({ ...report, findings: [finding('a/y', 'warning', 'PodsNotReady')] })).toBe(false);
  });

  it('json: { findings } with each field', () => {
    expect(doctorData({ services: ['a/y'], findings: [finding('a/y', 'error', 'SelectorMatchesNoPod')], notices: [] })).toEqual({
      findings: [
        {
          code: 'SelectorMatchesNoPod',
          severity: 'error',
          service: 'a/y',
          summary: 'SelectorMatchesNoPod summary',
          evidence: ['SelectorMatchesNoPod evidence'],
          reason: 'SelectorMatchesNoPod reason',
          command: 'SelectorMatchesNoPod command',
        },
      ],
    });
  });
});

describe('a dump without Endpoints or EndpointSlices', () => {
  it('a Service with Ready pods that declare its port yields nothing: the endpoint objects are not compared', () => {
    const objects = [
      node('node-a', '192.168.10.1'),
      service('default', 'ok', { clusterIP: '10.96.0.5', selector: { app: 'ok' }, ports: [{ port: 80 }] }),
      pod('default', 'ok-1', { labels: { app: 'ok' }, ip: '10.244.1.1', ports: [{ containerPort: 80 }] }),
    ];
    const report = runDoctor(contextOf(objects), { ...ALL, allNamespaces: false });
    expect(report.ok && report.value.findings).toEqual([]);
  });
});
