import { describe, expect, it } from 'vitest';
import { defaultDeployment, defaultObject, defaultReplicaSet } from './defaults.js';
import type { Deployment, ReplicaSet } from './objects/apps.js';
import { formatLabelSelectorObject, labelSelectorMatches, labelSelectorString } from './objects/label-selector.js';
import { renderFieldError } from './validation/field-errors.js';
import { validateObject } from './validation/validate.js';

const deployment = (spec: Deployment['spec']): Deployment => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec });
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } });

// upstream (v1.33): pkg/apis/apps/v1/defaults_test.go TestSetDefaultDeployment
describe('defaultDeployment (upstream SetDefaults_Deployment)', () => {
  const cases: { name: string; spec: Deployment['spec']; want: Record<string, unknown> }[] = [
    {
      name: 'empty spec: 1 replica, RollingUpdate 25%/25%, history 10, deadline 600',
      spec: {},
      want: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    },
    {
      name: 'replicas 5 and maxSurge 1 are kept, maxUnavailable defaulted',
      spec: { replicas: 5, strategy: { rollingUpdate: { maxSurge: 1 } } },
      want: { replicas: 5, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    },
    {
      name: 'Recreate gets no rollingUpdate',
      spec: { replicas: 5, strategy: { type: 'Recreate' } },
      want: { replicas: 5, strategy: { type: 'Recreate' }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    },
    {
      name: 'progressDeadlineSeconds 30 and revisionHistoryLimit 0 are kept',
      spec: { replicas: 5, strategy: { type: 'Recreate' }, progressDeadlineSeconds: 30, revisionHistoryLimit: 0 },
      want: { replicas: 5, strategy: { type: 'Recreate' }, revisionHistoryLimit: 0, progressDeadlineSeconds: 30 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { template: t, ...spec } = defaultDeployment(deployment(c.spec)).spec ?? {};
      expect(spec).toEqual(c.want);
      expect(t?.spec?.['restartPolicy']).toBe('Always');
    });
  }
  it('defaultObject routes ReplicaSets to one replica', () => {
    const rs: ReplicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: {} };
    expect(defaultObject(rs).spec?.replicas).toBe(1);
    expect(defaultReplicaSet({ ...rs, spec: { replicas: 0 } }).spec?.replicas).toBe(0);
  });
});

describe('label selectors (metav1.LabelSelectorAsSelector)', () => {
  it('a nil selector matches nothing, an empty one everything', () => {
    expect(labelSelectorMatches(undefined, { a: 'b' })).toBe(false);
    expect(labelSelectorMatches({}, { a: 'b' })).toBe(true);
  });
  it('matches labels and expressions of every operator', () => {
    const sel = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'DoesNotExist' }, { key: 'y', operator: 'NotIn', values: ['1'] }] };
    expect(labelSelectorMatches(sel, { app: 'web', tier: 'b' })).toBe(true);
    expect(labelSelectorMatches(sel, { app: 'web', tier: 'c' })).toBe(false);
    expect(labelSelectorMatches(sel, { app: 'web', tier: 'a', x: '' })).toBe(false);
    expect(labelSelectorMatches(sel, { app: 'web', tier: 'a', y: '1' })).toBe(false);
    expect(labelSelectorMatches(sel, { app: 'db', tier: 'a' })).toBe(false);
  });
  it('prints sorted by key with sorted values, as Selector.String()', () => {
    const sel = { matchLabels: { z: '1', app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'k', operator: 'Exists' }, { key: 'n', operator: 'DoesNotExist' }] };
    expect(labelSelectorString(sel)).toBe('app=web,k,!n,tier in (a,b),z=1');
    expect(formatLabelSelectorObject({})).toBe('<none>');
  });
});

const errorsOf = (d: Deployment, old?: Deployment): string[] => validateObject(defaultDeployment(d), old === undefined ? undefined : defaultDeployment(old)).map(renderFieldError);

// upstream (v1.33): pkg/apis/apps/validation/validation_test.go TestValidateDeployment (error cases)
describe('validateDeployment (upstream ValidateDeployment)', () => {
  it('accepts what kubectl create deployment sends', () => {
    expect(errorsOf(deployment({ replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }), strategy: {} }))).toEqual([]);
  });
  const cases: { name: string; spec: Deployment['spec']; want: string[] }[] = [
    { name: 'missing selector', spec: { template: template({ app: 'web' }) }, want: ['spec.selector: Required value'] },
    {
      name: 'empty selector',
      spec: { selector: {}, template: template({ app: 'web' }) },
      want: ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment'],
    },
    {
      name: 'selector does not match template labels',
      spec: { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'db' }) },
      want: ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`'],
    },
    { name: 'negative replicas', spec: { replicas: -1, selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) }, want: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'] },
    {
      name: 'maxSurge and maxUnavailable both 0',
      spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }), strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } },
      want: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'maxUnavailable over 100%',
      spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }), strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '110%' } } },
      want: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"110%"}: must not be greater than 100%'],
    },
    {
      name: 'rollingUpdate with Recreate',
      spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }), strategy: { type: 'Recreate', rollingUpdate: {} } },
      want: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    },
    {
      name: 'progressDeadlineSeconds not above minReadySeconds',
      spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }), minReadySeconds: 10, progressDeadlineSeconds: 10 },
      want: ['spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds'],
    },
    {
      name: 'restartPolicy other than Always',
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { restartPolicy: 'Never' } } },
      want: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    },
  ];
  for (const c of cases) it(c.name, () => expect(errorsOf(deployment(c.spec))).toEqual(c.want));

  it('an update may not change the selector (apps/v1)', () => {
    const old = deployment({ selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web', v: '1' }) });
    const next = deployment({ selector: { matchLabels: { app: 'web', v: '1' } }, template: template({ app: 'web', v: '1' }) });
    expect(errorsOf(next, old)).toEqual([
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"1"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
    expect(errorsOf({ ...old, spec: { ...old.spec, replicas: 7 } }, old)).toEqual([]);
  });
});
