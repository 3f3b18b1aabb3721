// The Ruleset check at the tracer's edge: a ruleset that is not a Ruleset is an ErrTrace
// naming the field, as @kubesvc/proxy's checkPacket and checkOptions refuse a packet or options
// of the wrong shape. It costs one pass over a Ruleset's rules, remembered per Ruleset, none in
// the interpreter's loop.

import { isRecord, ok, type Result } from '@kubesvc/api-types';
import { describeTraceInput as describe, refuseTraceInput as refuse, type ErrTrace } from '@kubesvc/proxy';
import type { Ruleset } from '../ruleset.js';

export { checkFamily, checkOptions, checkPacket } from '@kubesvc/proxy';

const checkedRulesets = new WeakMap<object, string | undefined>();

/**
 * Whether a value has a Ruleset's shape, down to each rule's chain, match list and target kind
 * (the interpreter refuses a match or target kind it does not know, with its rule). The answer
 * is remembered per object: a Ruleset is an immutable value, traced many times.
 */
export function checkRuleset(value: unknown): Result<Ruleset, ErrTrace> {
  if (!isRecord(value)) return refuse('ruleset', `expected a Ruleset or a restore text, got ${describe(value)}`);
  let problem: string | undefined;
  if (checkedRulesets.has(value)) problem = checkedRulesets.get(value);
  else {
    problem = rulesetProblem(value);
    checkedRulesets.set(value, problem);
  }
  return problem === undefined ? ok(value as unknown as Ruleset) : refuse('ruleset', problem);
}

type FieldType = 'string' | 'number' | 'boolean' | 'strings';

/** The fields each Match and Target kind has (ruleset.ts), and their types. */
const MATCH_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  comment: { text: 'string' },
  protocol: { protocol: 'string' },
  dport: { port: 'number' },
  source: { address: 'string', negated: 'boolean' },
  destination: { address: 'string', negated: 'boolean' },
  addrtype: { direction: 'string', addressType: 'string' },
  statistic: { probability: 'string' },
  'recent-check': { name: 'string', seconds: 'number' },
  'recent-set': { name: 'string' },
  mark: { value: 'string', mask: 'string', negated: 'boolean' },
  conntrack: { states: 'strings', negated: 'boolean' },
  nfacct: { name: 'string' },
};

const TARGET_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  jump: { chain: 'string' },
  accept: {},
  drop: {},
  reject: {},
  return: {},
  dnat: { destination: 'string' },
  mark: { op: 'string', value: 'string' },
  masquerade: {},
};

function fieldsFit(value: unknown, kinds: Readonly<Record<string, Readonly<Record<string, FieldType>>>>): boolean {
  if (!isRecord(value) || typeof value['kind'] !== 'string') return false;
  const fields = Object.hasOwn(kinds, value['kind']) ? kinds[value['kind']] : undefined;
  if (fields === undefined) return false;
  for (const [name, type] of Object.entries(fields)) {
    const field = value[name];
    if (type === 'strings' ? !(Array.isArray(field) && (field as unknown[]).every((f) => typeof f === 'string')) : typeof field !== type) return false;
  }
  return true;
}

function rulesetProblem(value: Record<string, unknown>): string | undefined {
  if (value['family'] !== 4 && value['family'] !== 6) return `family: expected 4 or 6, got ${describe(value['family'])}`;
  const tables = value['tables'];
  if (!Array.isArray(tables) || tables.length !== 2) return 'tables: expected [filter, nat]';
  const names = ['filter', 'nat'];
  for (const [i, table] of (tables as unknown[]).entries()) {
    if (!isRecord(table) || table['name'] !== names[i]) return `tables[${i}]: expected the ${names[i] ?? ''} table`;
    const chains = table['chains'];
    if (!Array.isArray(chains) || !(chains as unknown[]).every((c) => typeof c === 'string')) return `tables[${i}].chains: expected an array of chain names`;
    const rules = table['rules'];
    if (!Array.isArray(rules)) return `tables[${i}].rules: expected an array of rules`;
    for (const [j, rule] of (rules as unknown[]).entries()) {
      const where = `tables[${i}].rules[${j}]`;
      if (!isRecord(rule) || typeof rule['chain'] !== 'string') return `${where}: expected { chain, matches, target? }`;
      const matches = rule['matches'];
      if (!Array.isArray(matches)) return `${where}.matches: expected an array of matches`;
      for (const [k, match] of (matches as unknown[]).entries()) {
        if (!fieldsFit(match, MATCH_FIELDS)) return `${where}.matches[${k}]: not a Match`;
      }
      const target = rule['target'];
      if (target !== undefined && !fieldsFit(target, TARGET_FIELDS)) return `${where}.target: not a Target`;
    }
    const deleted = table['deletedChains'];
    if (deleted !== undefined && !Array.isArray(deleted)) return `tables[${i}].deletedChains: expected an array`;
  }
  return undefined;
}
