// Upstream's deployment util vectors, transcribed as tables.
// upstream (v1.33): pkg/controller/deployment/util/deployment_util_test.go (TestMaxUnavailable,
//           TestNewRSNewReplicas, TestDeploymentComplete, TestDeploymentProgressing,
//           TestDeploymentTimedOut), staging/src/k8s.io/apimachinery/pkg/util/rand/rand_test.go
//           (TestSafeEncodeString), hash/fnv (the FNV-1a test vectors)
import type { Deployment, ReplicaSet } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { deploymentComplete, deploymentProgressing, deploymentTimedOut, fnv32a, maxUnavailable, newRSNewReplicas, safeEncodeString } from './deployment-util.js';

const d = (replicas: number, strategy: NonNullable<Deployment['spec']>['strategy'], status: Deployment['status'] = {}, extra: Partial<NonNullable<Deployment['spec']>> = {}): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { replicas, strategy, ...extra },
  status,
});

describe('MaxUnavailable (upstream TestMaxUnavailable)', () => {
  const rolling = (maxUnavailable: number | string) => ({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable } });
  const cases: { name: string; deployment: Deployment; want: number }[] = [
    { name: 'maxUnavailable less than replicas', deployment: d(10, rolling(5)), want: 5 },
    { name: 'maxUnavailable equal replicas', deployment: d(10, rolling(10)), want: 10 },
    { name: 'maxUnavailable greater than replicas', deployment: d(5, rolling(10)), want: 5 },
    { name: 'maxUnavailable with replicas is 0', deployment: d(0, rolling(10)), want: 0 },
    { name: 'maxUnavailable with Recreate deployment strategy', deployment: d(10, { type: 'Recreate' }), want: 0 },
    { name: 'maxUnavailable less than replicas with percents', deployment: d(10, rolling('50%')), want: 5 },
    { name: 'maxUnavailable equal replicas with percents', deployment: d(10, rolling('100%')), want: 10 },
    { name: 'maxUnavailable greater than replicas with percents', deployment: d(5, rolling('100%')), want: 5 },
  ];
  for (const c of cases) it(c.name, () => expect(maxUnavailable(c.deployment)).toBe(c.want));
});

describe('NewRSNewReplicas (upstream TestNewRSNewReplicas)', () => {
  const rs = (replicas: number): ReplicaSet => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas } });
  const cases: { name: string; strategy: 'RollingUpdate' | 'Recreate'; depReplicas: number; newRSReplicas: number; maxSurge: number; oldReplicas: number; want: number }[] = [
    { name: 'can not scale up - to newRSReplicas', strategy: 'RollingUpdate', depReplicas: 1, newRSReplicas: 5, maxSurge: 1, oldReplicas: 5, want: 5 },
    { name: 'scale up - to depReplicas', strategy: 'RollingUpdate', depReplicas: 6, newRSReplicas: 2, maxSurge: 10, oldReplicas: 4, want: 6 },
    { name: 'recreate - to depReplicas', strategy: 'Recreate', depReplicas: 3, newRSReplicas: 1, maxSurge: 1, oldReplicas: 1, want: 3 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const deployment = d(c.depReplicas, { type: c.strategy, rollingUpdate: { maxUnavailable: 1, maxSurge: c.maxSurge } });
      const newRS = rs(c.newRSReplicas);
      expect(newRSNewReplicas(deployment, [newRS, rs(c.oldReplicas)], newRS)).toBe(c.want);
    });
  }
});

describe('DeploymentComplete (upstream TestDeploymentComplete)', () => {
  const dep = (desired: number, current: number, updated: number, available: number, maxUnavail: number, surge: number): Deployment =>
    d(desired, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: maxUnavail, maxSurge: surge } }, { replicas: current, updatedReplicas: updated, availableReplicas: available });
  const cases: { name: string; deployment: Deployment; want: boolean }[] = [
    { name: 'not complete: min but not all pods become available', deployment: dep(5, 5, 5, 4, 1, 0), want: false },
    { name: 'not complete: min availability is not honored', deployment: dep(5, 5, 5, 3, 1, 0), want: false },
    { name: 'complete', deployment: dep(5, 5, 5, 5, 0, 0), want: true },
    { name: 'not complete: all pods are available but not updated', deployment: dep(5, 5, 4, 5, 0, 0), want: false },
    { name: 'not complete: still running old pods', deployment: dep(1, 2, 1, 1, 0, 1), want: false },
    { name: 'not complete: one replica deployment never comes up', deployment: dep(1, 1, 1, 0, 1, 1), want: false },
  ];
  for (const c of cases) it(c.name, () => expect(deploymentComplete(c.deployment, c.deployment.status ?? {})).toBe(c.want));
});

describe('DeploymentProgressing (upstream TestDeploymentProgressing)', () => {
  const status = (replicas: number, updatedReplicas: number, readyReplicas: number, availableReplicas: number) => ({ replicas, updatedReplicas, readyReplicas, availableReplicas });
  const cases: { name: string; old: ReturnType<typeof status>; next: ReturnType<typeof status>; want: boolean }[] = [
    { name: 'progressing: updated pods', old: status(10, 4, 4, 4), next: status(10, 6, 4, 4), want: true },
    { name: 'not progressing', old: status(10, 4, 4, 4), next: status(10, 4, 4, 4), want: false },
    { name: 'progressing: old pods removed', old: status(10, 4, 6, 6), next: status(8, 4, 6, 6), want: true },
    { name: 'not progressing: less new pods', old: status(10, 7, 3, 3), next: status(10, 6, 3, 3), want: false },
    { name: 'progressing: less overall but more new pods', old: status(10, 4, 7, 7), next: status(8, 8, 5, 5), want: true },
    { name: 'progressing: more ready pods', old: status(10, 10, 9, 8), next: status(10, 10, 10, 8), want: true },
    { name: 'progressing: more available pods', old: status(10, 10, 10, 9), next: status(10, 10, 10, 10), want: true },
  ];
  for (const c of cases) it(c.name, () => expect(deploymentProgressing(d(10, { type: 'RollingUpdate' }, c.old), c.next)).toBe(c.want));
});

describe('DeploymentTimedOut (upstream TestDeploymentTimedOut: now is 00:01:09)', () => {
  const at = (min: number, sec: number): string => new Date(Date.UTC(2016, 0, 1, 0, min, sec)).toISOString().replace('.000Z', 'Z');
  const now = Date.UTC(2016, 0, 1, 0, 1, 9);
  const dep = (reason: string, pds: number | undefined, from: string): Deployment =>
    d(1, { type: 'RollingUpdate' }, { conditions: [{ type: 'Progressing', status: 'True', reason, lastUpdateTime: from }] }, pds === undefined ? {} : { progressDeadlineSeconds: pds });
  const cases: { name: string; deployment: Deployment; want: boolean }[] = [
    { name: 'nil progressDeadlineSeconds specified - no timeout', deployment: dep('', undefined, at(1, 9)), want: false },
    { name: 'infinite progressDeadlineSeconds specified - no timeout', deployment: dep('', 2147483647, at(1, 9)), want: false },
    { name: 'progressDeadlineSeconds: 60s, now - started => 00:01:09 - 00:01:08 => 1s, no timeout', deployment: dep('', 60, at(1, 8)), want: false },
    { name: 'progressDeadlineSeconds: 60s, now - started => 00:01:09 - 00:00:09 => 60s, no timeout', deployment: dep('', 60, at(0, 9)), want: false },
    { name: 'progressDeadlineSeconds: 60s, now - started => 00:01:09 - 00:00:08 => 61s, timeout', deployment: dep('', 60, at(0, 8)), want: true },
    { name: 'no timeout: the rollout is complete', deployment: dep('NewReplicaSetAvailable', 60, at(0, 0)), want: false },
    { name: 'timeout: already timed out', deployment: dep('ProgressDeadlineExceeded', 60, at(1, 9)), want: true },
  ];
  for (const c of cases) it(c.name, () => expect(deploymentTimedOut(c.deployment, c.deployment.status ?? {}, now)).toBe(c.want));
});

describe('hashing', () => {
  // Go's hash/fnv and the FNV reference vectors.
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('FNV-32a of %j is %i', (text, want) => expect(fnv32a(new TextEncoder().encode(text))).toBe(want));
  // rand.SafeEncodeString maps each byte b to alphanums[b % 27] of "bcdfghjklmnpqrstvwxz2456789":
  // '0' is 48, 48 % 27 = 21, the '4'; '6' is 54, 54 % 27 = 0, the 'b'.
  it('SafeEncodeString of the decimal digits, byte by byte', () => {
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });
});
