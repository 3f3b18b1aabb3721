// The field selector of `?fieldSelector=`: upstream's parser (terms split on unescaped commas,
// `!=`, `==` or `=`, backslash escapes in values), each resource's selectable fields and their
// values, and the refusal of a field a resource does not have.
// upstream: staging/src/k8s.io/apimachinery/pkg/fields/selector.go (parseSelector, splitTerms,
//           splitTerm, UnescapeValue), pkg/apis/core/v1/conversion.go (AddFieldLabelConversionsFor*),
//           staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go (DefaultMetaV1FieldSelectorConversion),
//           pkg/registry/core/{pod,service,event,namespace,node}/strategy.go (ToSelectableFields)
import { err, ok, type Err, type Result, type TaggedError } from '@kubesvc/api-types';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A field selector that does not parse, or names a field the resource does not have (upstream's text). */
export type ErrFieldSelector = TaggedError<'ErrFieldSelector'>;

export type FieldSelectorResult = Result<readonly FieldRequirement[], ErrFieldSelector>;

const refuse = (message: string): Err<ErrFieldSelector> => err({ _tag: 'ErrFieldSelector', message });

function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let slash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (slash) slash = false;
    else if (c === '\\') slash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: (typeof OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): Result<string, ErrFieldSelector> {
  if (!/[\\,=]/.test(s)) return ok(s);
  let out = '';
  let slash = false;
  for (const c of s) {
    if (slash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else return refuse(`invalid field selector: invalid escape sequence: \\${c}`);
      slash = false;
      continue;
    }
    if (c === '\\') slash = true;
    else if (c === ',' || c === '=') return refuse(`invalid field selector: unescaped character in value: ${c}`);
    else out += c;
  }
  if (slash) return refuse('invalid field selector: invalid escape sequence: \\');
  return ok(out);
}

/** Parses a field selector (no field checks yet: see checkFieldSelector). */
export function parseFieldSelector(selector: string): FieldSelectorResult {
  const parts = splitTerms(selector).sort();
  const out: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === undefined) return refuse(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeValue(split.rhs);
    if (!value.ok) return value;
    out.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value: value.value });
  }
  return ok(out);
}

type Fields = Readonly<Record<string, string>>;
type FieldsOf = (object: Record<string, unknown>) => Fields;

function rec(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function metaFields(object: Record<string, unknown>, namespaced: boolean): Record<string, string> {
  const meta = rec(object['metadata']);
  return namespaced ? { 'metadata.name': str(meta['name']), 'metadata.namespace': str(meta['namespace']) } : { 'metadata.name': str(meta['name']) };
}

interface ResourceFields {
  /** Fields selectable on the resource, beyond what `fieldsOf` returns nothing is. */
  readonly fieldsOf: FieldsOf;
  /** Labels renamed before matching (a Pod's legacy spec.host). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The conversion function's refusal; absent: the default conversion's. */
  readonly explicit: boolean;
}

const DEFAULT_NAMESPACED: ResourceFields = { fieldsOf: (o) => metaFields(o, true), explicit: false };

/** Each resource's selectable fields. Unlisted resources have the default conversion's two. */
const RESOURCE_FIELDS: Readonly<Record<string, ResourceFields>> = {
  services: {
    explicit: true,
    fieldsOf: (o) => {
      const spec = rec(o['spec']);
      return { ...metaFields(o, true), 'spec.clusterIP': str(spec['clusterIP']), 'spec.type': str(spec['type']) };
    },
  },
  pods: {
    explicit: true,
    aliases: { 'spec.host': 'spec.nodeName' },
    fieldsOf: (o) => {
      const spec = rec(o['spec']);
      const status = rec(o['status']);
      return {
        ...metaFields(o, true),
        'spec.nodeName': str(spec['nodeName']),
        'spec.restartPolicy': str(spec['restartPolicy']),
        'spec.schedulerName': str(spec['schedulerName']),
        'status.phase': str(status['phase']),
        'status.podIP': str(status['podIP']),
        'status.nominatedNodeName': str(status['nominatedNodeName']),
      };
    },
  },
  events: {
    explicit: true,
    fieldsOf: (o) => {
      const io = rec(o['involvedObject']);
      const source = rec(o['source']);
      return {
        ...metaFields(o, true),
        'involvedObject.kind': str(io['kind']),
        'involvedObject.namespace': str(io['namespace']),
        'involvedObject.name': str(io['name']),
        'involvedObject.uid': str(io['uid']),
        'involvedObject.apiVersion': str(io['apiVersion']),
        'involvedObject.resourceVersion': str(io['resourceVersion']),
        'involvedObject.fieldPath': str(io['fieldPath']),
        reason: str(o['reason']),
        reportingComponent: str(o['reportingComponent']),
        source: str(source['component']),
        type: str(o['type']),
      };
    },
  },
  namespaces: {
    explicit: true,
    fieldsOf: (o) => ({ ...metaFields(o, false), 'status.phase': str(rec(o['status'])['phase']) }),
  },
  // Cluster-scoped kinds with no field label conversion of their own: the default conversion
  // accepts metadata.name and metadata.namespace, and the Store's DefaultClusterScopedAttr has
  // only the name, so metadata.namespace reads as "" (metaFields of an object with no namespace).
  // upstream: pkg/apis/networking/v1 (no AddFieldLabelConversionFunc for these kinds),
  //           staging/src/k8s.io/apiserver/pkg/storage/selection_predicate.go (DefaultClusterScopedAttr)
  servicecidrs: DEFAULT_NAMESPACED,
  ipaddresses: DEFAULT_NAMESPACED,
  nodes: {
    explicit: true,
    fieldsOf: (o) => ({ ...metaFields(o, false), 'spec.unschedulable': rec(o['spec'])['unschedulable'] === true ? 'true' : 'false' }),
  },
};

function resourceFields(resource: string): ResourceFields {
  return RESOURCE_FIELDS[resource] ?? DEFAULT_NAMESPACED;
}

/**
 * The requirements with their labels converted for `resource`, or the conversion's error
 * (`field label not supported: x`, or the default conversion's text).
 */
export function checkFieldSelector(resource: string, requirements: readonly FieldRequirement[]): FieldSelectorResult {
  const rf = resourceFields(resource);
  const known = new Set(Object.keys(rf.fieldsOf({})));
  const out: FieldRequirement[] = [];
  for (const r of requirements) {
    const field = rf.aliases?.[r.field] ?? r.field;
    if (!known.has(field)) {
      if (rf.explicit) return refuse(`field label not supported: ${r.field}`);
      return refuse(`${JSON.stringify(r.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    out.push({ ...r, field });
  }
  return ok(out);
}

/** Whether the object's selectable fields satisfy every (checked) requirement. */
export function fieldsMatch(resource: string, requirements: readonly FieldRequirement[], object: unknown): boolean {
  if (requirements.length === 0) return true;
  const fields = resourceFields(resource).fieldsOf(rec(object));
  return requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '='));
}
