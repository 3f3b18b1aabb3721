// metav1.LabelSelector read as labels.Selector: which label sets it matches and how it prints.
// upstream (v1.33): staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go
//           (LabelSelectorAsSelector, FormatLabelSelector), staging/src/k8s.io/apimachinery/
//           pkg/labels/selector.go (Requirement.Matches, Requirement.String, internalSelector.Add
//           sorting by key, safeSort of the values)
import type { LabelSelector } from './apps.js';

interface Requirement {
  readonly key: string;
  readonly op: 'eq' | 'in' | 'notin' | 'exists' | 'absent';
  readonly values: readonly string[];
}

/** The requirements of a selector, sorted by key; undefined for an operator upstream refuses. */
function requirements(selector: LabelSelector): Requirement[] | undefined {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) out.push({ key, op: 'eq', values: [value] });
  for (const expr of selector.matchExpressions ?? []) {
    const values = [...(expr.values ?? [])];
    switch (expr.operator) {
      case 'In':
        out.push({ key: expr.key, op: 'in', values });
        break;
      case 'NotIn':
        out.push({ key: expr.key, op: 'notin', values });
        break;
      case 'Exists':
        out.push({ key: expr.key, op: 'exists', values: [] });
        break;
      case 'DoesNotExist':
        out.push({ key: expr.key, op: 'absent', values: [] });
        break;
      default:
        return undefined;
    }
  }
  // sort.Sort is not stable; requirements with one key keep their order here.
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Whether a selector selects nothing at all (nil) or everything (empty). */
export function isEmptyLabelSelector(selector: LabelSelector | null | undefined): boolean {
  return selector !== null && selector !== undefined && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/**
 * Whether `labels` match the selector as LabelSelectorAsSelector reads it: a nil selector
 * matches nothing, an empty one everything.
 */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (selector === null || selector === undefined) return false;
  const reqs = requirements(selector);
  if (reqs === undefined) return false;
  const set = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(set, r.key);
    const value = set[r.key];
    switch (r.op) {
      case 'eq':
      case 'in':
        return has && value !== undefined && r.values.includes(value);
      case 'notin':
        return !has || value === undefined || !r.values.includes(value);
      case 'exists':
        return has;
      case 'absent':
        return !has;
    }
  });
}

/** labels.Selector.String() of the selector: `app=web,tier in (a,b)`; '' for nil or empty. */
export function labelSelectorString(selector: LabelSelector | null | undefined): string {
  if (selector === null || selector === undefined) return '';
  const reqs = requirements(selector);
  if (reqs === undefined) return '<error>';
  return reqs
    .map((r) => {
      const values = [...r.values].sort();
      switch (r.op) {
        case 'eq':
          return `${r.key}=${values.join(',')}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.op} (${values.join(',')})`;
        case 'exists':
          return r.key;
        case 'absent':
          return `!${r.key}`;
      }
    })
    .join(',');
}

/** metav1.FormatLabelSelector: the selector's text, `<none>` when it is empty. */
export function formatLabelSelectorObject(selector: LabelSelector | null | undefined): string {
  const text = labelSelectorString(selector);
  return text === '' ? '<none>' : text;
}
