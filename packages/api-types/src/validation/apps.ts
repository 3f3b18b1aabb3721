// apps/v1 Deployment and ReplicaSet validation on create and update, for the fields modelled
// here: replicas, the selector and its match with the template's labels, the template's
// restartPolicy, the strategy, minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds,
// and the selector's immutability that the apps/v1 strategies add on update.
// upstream (v1.33): pkg/apis/apps/validation/validation.go (ValidateDeployment,
//           ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment,
//           ValidatePositiveIntOrPercent, IsNotMoreThan100Percent, ValidateReplicaSet,
//           ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet),
//           pkg/registry/apps/deployment/strategy.go and replicaset/strategy.go (ValidateUpdate:
//           the selector is immutable outside extensions/v1beta1),
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
//           (ValidateLabelSelector, ValidateLabelSelectorRequirement), and the status updates
//           (ValidateDeploymentStatus, ValidateDeploymentStatusUpdate, ValidateReplicaSetStatus)
//
// NOT checked: the template's pod spec beyond restartPolicy and activeDeadlineSeconds (pods
// are validated on the modelled fields only, see pod.ts), volumes, and status conditions.
import type { Deployment, LabelSelector, PodTemplateSpec, ReplicaSet } from '../objects/apps.js';
import { isEmptyLabelSelector, labelSelectorMatches } from '../objects/label-selector.js';
import { fieldPath, type FieldPath } from './field-path.js';
import { forbidden, goQuote, goValue, invalid, notSupported, required, type FieldError, type GoValue } from './field-errors.js';
import { isQualifiedName, nameIsDNSSubdomain } from './names.js';
import { FIELD_IMMUTABLE, validateAnnotations, validateLabels, validateObjectMeta } from './object-meta.js';
import { semanticEqual } from '../semantic-equal.js';

const META = fieldPath('metadata');
const SPEC = fieldPath('spec');

function goMap(m: Readonly<Record<string, string>> | null | undefined): string {
  if (m === null || m === undefined) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k] ?? '')}`).join(', ')}}`;
}

/** A metav1.LabelSelector as %#v prints it (ErrorBody dereferences the pointer first). */
export function goLabelSelector(selector: LabelSelector): GoValue {
  const exprs = selector.matchExpressions;
  const exprText =
    exprs === null || exprs === undefined
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${exprs
          .map((e) => {
            const values = e.values === null || e.values === undefined ? '[]string(nil)' : `[]string{${e.values.map(goQuote).join(', ')}}`;
            return `v1.LabelSelectorRequirement{Key:${goQuote(e.key)}, Operator:${goQuote(e.operator)}, Values:${values}}`;
          })
          .join(', ')}}`;
  return goValue(`v1.LabelSelector{MatchLabels:${goMap(selector.matchLabels)}, MatchExpressions:${exprText}}`);
}

/** An intstr.IntOrString as %#v prints it (the value type has no String method). */
function goIntOrString(value: number | string): GoValue {
  return typeof value === 'number'
    ? goValue(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`)
    : goValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(value)}}`);
}

function nonNegative(value: number | undefined, path: FieldPath): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** metav1validation.ValidateLabelSelector with AllowInvalidLabelValueInSelector off. */
function validateLabelSelector(selector: LabelSelector, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const p = path.child('matchExpressions').index(i);
    const count = (expr.values ?? []).length;
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (count === 0) errs.push(required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (count > 0) errs.push(forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(p.child('operator'), expr.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(expr.key)) errs.push(invalid(p.child('key'), expr.key, msg));
  });
  errs.push(...validateLabels(selector.matchLabels ?? undefined, path.child('matchLabels')));
  return errs;
}

/** The selector checks both specs share; true in `ok` when LabelSelectorAsSelector accepts it. */
function validateSelector(selector: LabelSelector | null | undefined): FieldError[] {
  const path = SPEC.child('selector');
  if (selector === null || selector === undefined) return [required(path, '')];
  const errs = validateLabelSelector(selector, path);
  if (isEmptyLabelSelector(selector)) errs.push(invalid(path, goLabelSelector(selector), 'empty selector is invalid for deployment'));
  return errs;
}

/** ValidatePodTemplateSpecForReplicaSet, on the modelled fields. */
function validateTemplate(template: PodTemplateSpec | undefined, selector: LabelSelector | null | undefined): FieldError[] {
  const path = SPEC.child('template');
  if (template === undefined) return [required(path, '')];
  const errs: FieldError[] = [];
  const labels = template.metadata?.labels;
  if (selector !== null && selector !== undefined && !isEmptyLabelSelector(selector) && !labelSelectorMatches(selector, labels)) {
    errs.push(invalid(path.child('metadata', 'labels'), goValue(goMap(labels ?? null)), '`selector` does not match template `labels`'));
  }
  errs.push(...validateLabels(labels, path.child('metadata', 'labels')));
  errs.push(...validateAnnotations(template.metadata?.annotations, path.child('metadata', 'annotations')));
  const spec = template.spec ?? {};
  const restartPolicy = typeof spec['restartPolicy'] === 'string' ? spec['restartPolicy'] : '';
  if (restartPolicy !== 'Always') errs.push(notSupported(path.child('spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (spec['activeDeadlineSeconds'] !== undefined && spec['activeDeadlineSeconds'] !== null) {
    errs.push(forbidden(path.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  }
  return errs;
}

const PERCENT = /^[0-9]+%$/;

function validatePositiveIntOrPercent(value: number | string, path: FieldPath): FieldError[] {
  if (typeof value === 'string') {
    return PERCENT.test(value) ? [] : [invalid(path, goIntOrString(value), "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonNegative(value, path);
}

/** getIntOrPercentValue: the percent's number, an int's value, 0 for anything else. */
function intOrPercentValue(value: number | string): number {
  if (typeof value === 'number') return value;
  return PERCENT.test(value) ? Number(value.slice(0, -1)) : 0;
}

function validateStrategy(deployment: Deployment): FieldError[] {
  const strategy = deployment.spec?.strategy ?? {};
  const path = SPEC.child('strategy');
  switch (strategy.type) {
    case 'Recreate':
      return strategy.rollingUpdate === undefined || strategy.rollingUpdate === null
        ? []
        : [forbidden(path.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")];
    case 'RollingUpdate': {
      const rolling = strategy.rollingUpdate;
      if (rolling === undefined || rolling === null) return [required(path.child('rollingUpdate'), 'this should be defaulted and never be nil')];
      const p = path.child('rollingUpdate');
      const maxUnavailable = rolling.maxUnavailable ?? 0;
      const maxSurge = rolling.maxSurge ?? 0;
      const errs = [...validatePositiveIntOrPercent(maxUnavailable, p.child('maxUnavailable')), ...validatePositiveIntOrPercent(maxSurge, p.child('maxSurge'))];
      if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
        errs.push(invalid(p.child('maxUnavailable'), goIntOrString(maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      if (typeof maxUnavailable === 'string' && intOrPercentValue(maxUnavailable) > 100) {
        errs.push(invalid(p.child('maxUnavailable'), goIntOrString(maxUnavailable), 'must not be greater than 100%'));
      }
      return errs;
    }
    default:
      return [notSupported(path, goValue(`apps.DeploymentStrategy{Type:${goQuote(strategy.type ?? '')}}`), ['Recreate', 'RollingUpdate'])];
  }
}

function validateDeploymentSpec(deployment: Deployment): FieldError[] {
  const spec = deployment.spec ?? {};
  const errs = [...nonNegative(spec.replicas, SPEC.child('replicas')), ...validateSelector(spec.selector), ...validateTemplate(spec.template, spec.selector)];
  errs.push(...validateStrategy(deployment));
  errs.push(...nonNegative(spec.minReadySeconds, SPEC.child('minReadySeconds')));
  errs.push(...nonNegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  if (spec.progressDeadlineSeconds !== undefined) {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, SPEC.child('progressDeadlineSeconds')));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(invalid(SPEC.child('progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

function validateReplicaSetSpec(replicaSet: ReplicaSet): FieldError[] {
  const spec = replicaSet.spec ?? {};
  return [
    ...nonNegative(spec.replicas, SPEC.child('replicas')),
    ...nonNegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateSelector(spec.selector),
    ...validateTemplate(spec.template, spec.selector),
  ];
}

function selectorImmutable(selector: LabelSelector | null | undefined, old: LabelSelector | null | undefined): FieldError[] {
  if (semanticEqual(selector ?? null, old ?? null)) return [];
  return [invalid(SPEC.child('selector'), selector === null || selector === undefined ? null : goLabelSelector(selector), FIELD_IMMUTABLE)];
}

/** ValidateDeployment (no old) or the update's spec checks with the apps/v1 selector rule. */
export function validateDeployment(deployment: Deployment, old?: Deployment): FieldError[] {
  const meta = old === undefined ? validateObjectMeta(deployment.metadata, { namespaced: true, validateName: nameIsDNSSubdomain }, META) : [];
  const errs = [...meta, ...validateDeploymentSpec(deployment)];
  if (old !== undefined) errs.push(...selectorImmutable(deployment.spec?.selector, old.spec?.selector));
  return errs;
}

/** ValidateReplicaSet (no old) or the update's spec checks with the apps/v1 selector rule. */
export function validateReplicaSet(replicaSet: ReplicaSet, old?: ReplicaSet): FieldError[] {
  const meta = old === undefined ? validateObjectMeta(replicaSet.metadata, { namespaced: true, validateName: nameIsDNSSubdomain }, META) : [];
  const errs = [...meta, ...validateReplicaSetSpec(replicaSet)];
  if (old !== undefined) errs.push(...selectorImmutable(replicaSet.spec?.selector, old.spec?.selector));
  return errs;
}

const STATUS = fieldPath('status');
const NOT_ABOVE_REPLICAS = 'cannot be greater than status.replicas';

/** ValidateDeploymentStatus and ValidateDeploymentStatusUpdate's check that collisionCount never goes down. */
export function validateDeploymentStatusUpdate(deployment: Deployment, old: Deployment): FieldError[] {
  const s = deployment.status ?? {};
  const errs: FieldError[] = [];
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) errs.push(...nonNegative(s[k], STATUS.child(k)));
  errs.push(...nonNegative(s.collisionCount, STATUS.child('collisionCount')));
  const replicas = s.replicas ?? 0;
  if ((s.updatedReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('updatedReplicas'), s.updatedReplicas, NOT_ABOVE_REPLICAS));
  if ((s.readyReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('readyReplicas'), s.readyReplicas, NOT_ABOVE_REPLICAS));
  if ((s.availableReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('availableReplicas'), s.availableReplicas, NOT_ABOVE_REPLICAS));
  if ((s.availableReplicas ?? 0) > (s.readyReplicas ?? 0)) errs.push(invalid(STATUS.child('availableReplicas'), s.availableReplicas, 'cannot be greater than readyReplicas'));
  const before = old.status?.collisionCount;
  if (before !== undefined && (s.collisionCount === undefined || s.collisionCount < before)) {
    errs.push(invalid(STATUS.child('collisionCount'), s.collisionCount ?? 0, 'cannot be decremented'));
  }
  return errs;
}

/** ValidateReplicaSetStatus. */
export function validateReplicaSetStatusUpdate(replicaSet: ReplicaSet): FieldError[] {
  const s = replicaSet.status ?? {};
  const errs: FieldError[] = [];
  for (const k of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) errs.push(...nonNegative(s[k], STATUS.child(k)));
  const msg = 'cannot be greater than status.replicas';
  const replicas = s.replicas ?? 0;
  if ((s.fullyLabeledReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('fullyLabeledReplicas'), s.fullyLabeledReplicas, msg));
  if ((s.readyReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('readyReplicas'), s.readyReplicas, msg));
  if ((s.availableReplicas ?? 0) > replicas) errs.push(invalid(STATUS.child('availableReplicas'), s.availableReplicas, msg));
  if ((s.availableReplicas ?? 0) > (s.readyReplicas ?? 0)) errs.push(invalid(STATUS.child('availableReplicas'), s.availableReplicas, 'cannot be greater than readyReplicas'));
  return errs;
}
