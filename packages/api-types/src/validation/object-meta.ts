// ObjectMeta validation on create and update, in upstream's order.
// upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go (v1.32:
//             ValidateObjectMetaAccessor, ValidateObjectMetaAccessorUpdate)
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go (ValidateLabels)
//           pkg/apis/core/validation/validation.go (ValidateObjectMeta, ValidateObjectMetaUpdate,
//             validateKubeFinalizerName), which every kind modelled here goes through
//
// Label and annotation errors come out in the object's key order. Upstream ranges over a
// Go map, whose order is random, so any fixed order is as faithful as another.
import type { FieldPath } from './field-path.js';
import {
  forbidden,
  goQuote,
  goStringSlice,
  goValue,
  invalid,
  required,
  tooLong,
  type FieldError,
  type GoValue,
} from './field-errors.js';

import { isQualifiedName, isValidLabelValue, utf8Length, validateNamespaceName, type ValidateNameFunc } from './names.js';

/** The ObjectMeta fields validation reads; the decoded ObjectMeta type is assignable to it. */
export interface ObjectMetaInput {
  name?: string | undefined;
  generateName?: string | undefined;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
  creationTimestamp?: string | null | undefined;
  deletionTimestamp?: string | null | undefined;
  deletionGracePeriodSeconds?: number | null | undefined;
  labels?: Readonly<Record<string, string>> | undefined;
  annotations?: Readonly<Record<string, string>> | undefined;
  finalizers?: readonly string[] | undefined;
  ownerReferences?:
    | readonly {
        apiVersion: string;
        kind: string;
        name: string;
        uid: string;
        controller?: boolean | undefined;
        blockOwnerDeletion?: boolean | undefined;
      }[]
    | undefined;
}

type OwnerReferenceInput = NonNullable<ObjectMetaInput['ownerReferences']>[number];

export interface ObjectMetaOptions {
  /** Whether the kind is namespaced: the namespace is then required, otherwise forbidden. */
  readonly namespaced: boolean;
  /** The kind's name rule, e.g. validateServiceName. */
  readonly validateName: ValidateNameFunc;
  /**
   * Core's wrapper adds the rule that finalizers in the kubernetes.io namespace be known
   * ones (default true). The generic registry's own check of every object's metadata
   * (rest.BeforeCreate, rest.BeforeUpdate) is apimachinery's alone: false.
   */
  readonly kubeFinalizerNames?: boolean;
}

// upstream: objectmeta.go TotalAnnotationSizeLimitB
const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10);
/** upstream: apimachinery api/validation FieldImmutableErrorMsg */
export const FIELD_IMMUTABLE = 'field is immutable';
// upstream: metav1.FinalizerOrphanDependents, FinalizerDeleteDependents, core.FinalizerKubernetes
const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';
/** upstream: IsStandardFinalizerName (kubernetes, and metav1's orphan and foregroundDeletion). */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', FINALIZER_ORPHAN, FINALIZER_FOREGROUND]);


/** ValidateLabels: both kinds of error sit on the map's own path, not on `labels[key]`. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** ValidateAnnotations: keys are checked lower-cased; keys plus values may total 256 KiB. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += utf8Length(k) + utf8Length(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** schema.ParseGroupVersion: an error (more than one '/') leaves group and version empty. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion.length === 0 || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

// Go prints a non-nil pointer as its address, which no model can reproduce; a fixed
// placeholder keeps messages stable.
function goBoolPointer(b: boolean | undefined): string {
  return b === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
}

function goOwnerReference(ref: OwnerReferenceInput): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion)}, Kind:${goQuote(ref.kind)}, ` +
    `Name:${goQuote(ref.name)}, UID:${goQuote(ref.uid)}, Controller:${goBoolPointer(ref.controller)}, ` +
    `BlockOwnerDeletion:${goBoolPointer(ref.blockOwnerDeletion)}}`
  );
}

function validateOwnerReferences(refs: readonly OwnerReferenceInput[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    // Upstream validates each reference against the list's path, without an index.
    const gv = parseGroupVersion(ref.apiVersion);
    if (gv.version.length === 0) errs.push(invalid(path.child('apiVersion'), ref.apiVersion, 'version must not be empty'));
    if (ref.kind.length === 0) errs.push(invalid(path.child('kind'), ref.kind, 'kind must not be empty'));
    if (ref.name.length === 0) errs.push(invalid(path.child('name'), ref.name, 'name must not be empty'));
    if (ref.uid.length === 0) errs.push(invalid(path.child('uid'), ref.uid, 'uid must not be empty'));
    // upstream: BannedOwners = {Group: "", Version: "v1", Kind: "Event"}; GroupVersionKind.String()
    if (gv.group === '' && gv.version === 'v1' && ref.kind === 'Event') {
      errs.push(invalid(path, goValue(goOwnerReference(ref)), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        const all = goValue(`[]v1.OwnerReference{${(refs ?? []).map(goOwnerReference).join(', ')}}`);
        errs.push(
          invalid(
            path,
            all,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers (apimachinery): errors on `finalizers` itself, without an index. */
function validateFinalizers(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let orphan = false;
  let foreground = false;
  for (const f of finalizers ?? []) {
    for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
    if (f === FINALIZER_ORPHAN) orphan = true;
    if (f === FINALIZER_FOREGROUND) foreground = true;
  }
  if (orphan && foreground) {
    errs.push(
      invalid(
        path,
        goStringSlice(finalizers),
        `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`,
      ),
    );
  }
  return errs;
}

/** validateKubeFinalizerName (core): a name without '/' must be one of the standard ones. */
function validateKubeFinalizerNames(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      errs.push(invalid(path.index(i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

function validateNonnegative(value: number | undefined, path: FieldPath): FieldError[] {
  // upstream: generic.go IsNegativeErrorMsg
  return value !== undefined && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/**
 * ValidateObjectMeta on create, as core's wrapper runs it: apimachinery's checks, then the
 * legacy finalizer-name rule.
 */
export function validateObjectMeta(meta: ObjectMetaInput, options: ObjectMetaOptions, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  const generateName = meta.generateName ?? '';
  const namespace = meta.namespace ?? '';

  if (generateName.length > 0) {
    for (const msg of options.validateName(generateName, true)) {
      errs.push(invalid(path.child('generateName'), generateName, msg));
    }
  }
  if (name.length === 0) {
    errs.push(required(path.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of options.validateName(name, false)) errs.push(invalid(path.child('name'), name, msg));
  }
  if (options.namespaced) {
    if (namespace.length === 0) {
      errs.push(required(path.child('namespace'), ''));
    } else {
      for (const msg of validateNamespaceName(namespace, false)) {
        errs.push(invalid(path.child('namespace'), namespace, msg));
      }
    }
  } else if (namespace.length > 0) {
    errs.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegative(meta.generation, path.child('generation')));
  errs.push(...validateLabels(meta.labels, path.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, path.child('finalizers')));
  if (options.kubeFinalizerNames !== false) errs.push(...validateKubeFinalizerNames(meta.finalizers, path.child('finalizers')));
  return errs;
}

// --- Timestamps ---------------------------------------------------------------------------
// metav1.Time compares by instant (apiequality.Semantic: a.UTC() == b.UTC()) and prints
// through time.Time.String(). The apiserver decodes into its local zone, assumed UTC here.

interface Instant {
  readonly seconds: number;
  readonly nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z0: number): { y: number; m: number; d: number } {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

function parseInstant(text: string): Instant | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let offset = 0;
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const seconds =
    daysFromCivil(Number(y), Number(mo), Number(d)) * 86400 + Number(h) * 3600 + Number(mi) * 60 + Number(s) - offset;
  const nanos = frac === undefined ? 0 : Number(frac.slice(0, 9).padEnd(9, '0'));
  return { seconds, nanos };
}

// Go's zero time.Time: January 1, year 1, 00:00:00 UTC.
const ZERO_INSTANT: Instant = { seconds: daysFromCivil(1, 1, 1) * 86400, nanos: 0 };

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** time.Time.String() in UTC: "2006-01-02 15:04:05.999999999 +0000 UTC". */
function goTimeString(t: Instant): string {
  const days = Math.floor(t.seconds / 86400);
  const secOfDay = t.seconds - days * 86400;
  const { y, m, d } = civilFromDays(days);
  const hh = Math.floor(secOfDay / 3600);
  const mm = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  const frac = t.nanos > 0 ? `.${pad(t.nanos, 9).replace(/0+$/, '')}` : '';
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)} ${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}${frac} +0000 UTC`;
}

/** The bad value upstream prints for a timestamp (a Stringer), or "null" for a nil pointer. */
function timeBadValue(text: string | null | undefined, isPointer: boolean): GoValue | null {
  if (text === null || text === undefined) return isPointer ? null : goValue(goTimeString(ZERO_INSTANT));
  const t = parseInstant(text);
  // An unparseable timestamp cannot reach upstream's validation (decoding fails first).
  return goValue(t === null ? text : goTimeString(t));
}

function sameTime(a: string | null | undefined, b: string | null | undefined, isPointer: boolean): boolean {
  const absentA = a === null || a === undefined;
  const absentB = b === null || b === undefined;
  if (isPointer && (absentA || absentB)) return absentA && absentB;
  const ta = absentA ? ZERO_INSTANT : parseInstant(a);
  const tb = absentB ? ZERO_INSTANT : parseInstant(b);
  if (ta === null || tb === null) return a === b;
  return ta.seconds === tb.seconds && ta.nanos === tb.nanos;
}

/** ValidateObjectMetaUpdate, as core's wrapper runs it. */
export function validateObjectMetaUpdate(
  newMeta: ObjectMetaInput,
  oldMeta: ObjectMetaInput,
  path: FieldPath,
  options: Pick<ObjectMetaOptions, 'kubeFinalizerNames'> = {},
): FieldError[] {
  const errs: FieldError[] = [];

  // Finalizers cannot be added once the object is being deleted.
  if (oldMeta.deletionTimestamp !== null && oldMeta.deletionTimestamp !== undefined) {
    const old = new Set(oldMeta.finalizers ?? []);
    const extra = [...new Set((newMeta.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (extra.length > 0) {
      errs.push(
        forbidden(
          path.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra).repr}`,
        ),
      );
    }
  }

  const resourceVersion = newMeta.resourceVersion ?? '';
  if (resourceVersion.length === 0) {
    errs.push(invalid(path.child('resourceVersion'), resourceVersion, 'must be specified for an update'));
  }
  const newGeneration = newMeta.generation ?? 0;
  if (newGeneration < (oldMeta.generation ?? 0)) {
    errs.push(invalid(path.child('generation'), newGeneration, 'must not be decremented'));
  }

  for (const key of ['name', 'namespace', 'uid'] as const) {
    const now = newMeta[key] ?? '';
    if (now !== (oldMeta[key] ?? '')) errs.push(invalid(path.child(key), now, FIELD_IMMUTABLE));
  }
  if (!sameTime(newMeta.creationTimestamp, oldMeta.creationTimestamp, false)) {
    errs.push(invalid(path.child('creationTimestamp'), timeBadValue(newMeta.creationTimestamp, false), FIELD_IMMUTABLE));
  }
  if (!sameTime(newMeta.deletionTimestamp, oldMeta.deletionTimestamp, true)) {
    errs.push(invalid(path.child('deletionTimestamp'), timeBadValue(newMeta.deletionTimestamp, true), FIELD_IMMUTABLE));
  }
  const newGrace = newMeta.deletionGracePeriodSeconds ?? null;
  if (newGrace !== (oldMeta.deletionGracePeriodSeconds ?? null)) {
    errs.push(invalid(path.child('deletionGracePeriodSeconds'), newGrace, FIELD_IMMUTABLE));
  }

  errs.push(...validateLabels(newMeta.labels, path.child('labels')));
  errs.push(...validateAnnotations(newMeta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, path.child('ownerReferences')));
  if (options.kubeFinalizerNames !== false) {
    errs.push(...validateKubeFinalizerNames(newMeta.finalizers, path.child('finalizers')));
  }
  return errs;
}
