// What the tracer looks up in a table, built once per NftTable (an immutable value): the base
// chains of each hook in priority order, each rule's statements, and each set's elements read
// by its key type, with an exact-key index beside the prefixes that need a scan.

import type { NftElement, NftRule, NftSet, NftTable } from '../model/types.js';
import { durationSeconds, numericPriority } from '../read/parse-list-ruleset.js';
import { addressLiteral, compileRule, type Literal, protocolNumber, type Statement } from './rule-program.js';
import type { BaseChainHook as Hook } from '../names.js';

export interface BaseChainRef {
  readonly name: string;
  readonly type: string;
  readonly hook: Hook;
  readonly priority: number;
}

interface ParsedElement {
  readonly key: readonly Literal[];
  readonly element: NftElement;
}

export interface SetIndex {
  readonly set: NftSet;
  readonly parts: number;
  /** By the key's values joined (every part exact). */
  readonly exact: ReadonlyMap<string, NftElement>;
  /** Elements with a prefix in their key. */
  readonly prefixes: readonly ParsedElement[];
  /** The set's timeout in ms (affinity sets), if it has one. */
  readonly timeoutMs?: number;
}

export interface TableIndex {
  readonly family: 4 | 6;
  readonly hooks: ReadonlyMap<Hook, readonly BaseChainRef[]>;
  program(rule: NftRule): Statement[] | string;
  set(name: string): SetIndex | string;
}

const HOOKS: readonly Hook[] = ['prerouting', 'input', 'forward', 'output', 'postrouting'];
const indexes = new WeakMap<NftTable, TableIndex | string>();

/** The index of a table, or why the table cannot be traced (a base chain's hook or priority). */
export function tableIndex(table: NftTable): TableIndex | string {
  let index = indexes.get(table);
  if (index === undefined) {
    index = build(table);
    indexes.set(table, index);
  }
  return index;
}

/** The values of a key, as the exact index keys them. */
export function exactKey(values: readonly (bigint | number)[]): string {
  return values.join(' ');
}

function build(table: NftTable): TableIndex | string {
  const family = table.family === 'ip6' ? 6 : 4;
  const hooks = new Map<Hook, BaseChainRef[]>();
  for (const [name, chain] of table.chains) {
    const { hook, type, priority } = chain.spec;
    if (hook === undefined) continue;
    const h = HOOKS.find((x) => x === hook);
    if (h === undefined) return `chain ${name}: unsupported hook ${hook}`;
    if (type !== 'filter' && type !== 'nat') return `chain ${name}: unsupported chain type ${type ?? '(none)'}`;
    const p = priority === undefined ? undefined : numericPriority(priority);
    if (p === undefined) return `chain ${name}: unknown priority ${priority ?? '(none)'}`;
    const list = hooks.get(h) ?? [];
    list.push({ name, type, hook: h, priority: Number(p) });
    hooks.set(h, list);
  }
  // Lower priority first; at equal priority, the order the table lists them.
  for (const list of hooks.values()) list.sort((a, b) => a.priority - b.priority);
  const programs = new Map<string, Statement[] | string>();
  const sets = new Map<string, SetIndex | string>();
  return {
    family,
    hooks,
    program(rule) {
      let p = programs.get(rule.rule);
      if (p === undefined) {
        p = compileRule(rule.rule, family);
        programs.set(rule.rule, p);
      }
      return p;
    },
    set(name) {
      let s = sets.get(name);
      if (s === undefined) {
        const set = table.sets.get(name);
        s = set === undefined ? `no set or map ${name}` : indexSet(set, family);
        sets.set(name, s);
      }
      return s;
    },
  };
}

type PartKind = 'address' | 'protocol' | 'port';

function partKinds(set: NftSet, family: 4 | 6): PartKind[] | string {
  if (set.spec.type === undefined) return `set ${set.spec.name}: only sets declared with a type can be traced (typeof ${set.spec.typeOf ?? ''})`;
  const key = set.spec.type.split(' : ')[0] ?? '';
  const out: PartKind[] = [];
  for (const part of key.split(' . ')) {
    const t = part.trim();
    if (t === (family === 4 ? 'ipv4_addr' : 'ipv6_addr')) out.push('address');
    else if (t === 'inet_proto') out.push('protocol');
    else if (t === 'inet_service') out.push('port');
    else return `set ${set.spec.name}: unsupported key type ${t}`;
  }
  return out;
}

function indexSet(set: NftSet, family: 4 | 6): SetIndex | string {
  const kinds = partKinds(set, family);
  if (typeof kinds === 'string') return kinds;
  const exact = new Map<string, NftElement>();
  const prefixes: ParsedElement[] = [];
  const full = family === 4 ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  for (const element of set.elements.values()) {
    if (element.key.length !== kinds.length) return `set ${set.spec.name}: element ${element.key.join(' . ')} does not have ${kinds.length} parts`;
    const key: Literal[] = [];
    for (const [i, text] of element.key.entries()) {
      const kind = kinds[i];
      const lit: Literal | undefined =
        kind === 'address'
          ? addressLiteral(text, family)
          : kind === 'protocol'
            ? literalNumber(protocolNumber(text))
            : literalNumber(/^\d+$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined);
      if (lit === undefined) return `set ${set.spec.name}: cannot read ${JSON.stringify(text)} in element ${element.key.join(' . ')}`;
      key.push(lit);
    }
    if (key.every((l) => l.kind === 'number' || l.mask === full)) exact.set(exactKey(key.map((l) => l.value)), element);
    else prefixes.push({ key, element });
  }
  let timeoutMs: number | undefined;
  if (set.spec.timeout !== undefined) {
    const seconds = durationSeconds(set.spec.timeout);
    if (seconds === undefined) return `set ${set.spec.name}: bad timeout ${set.spec.timeout}`;
    timeoutMs = Number(seconds.slice(0, -1)) * 1000;
  }
  return { set, parts: kinds.length, exact, prefixes, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

function literalNumber(n: number | undefined): Literal | undefined {
  return n === undefined ? undefined : { kind: 'number', value: n };
}

/** Whether a packet's value meets a literal. */
export function meets(value: bigint | number | undefined, lit: Literal): boolean {
  if (value === undefined) return false;
  if (lit.kind === 'number') return value === lit.value;
  return typeof value === 'bigint' && (value & lit.mask) === lit.value;
}

/** The element of `index` whose key the values meet, if any. */
export function findElement(index: SetIndex, values: readonly (bigint | number | undefined)[]): NftElement | undefined {
  if (values.length !== index.parts || values.some((v) => v === undefined)) return undefined;
  const hit = index.exact.get(exactKey(values as (bigint | number)[]));
  if (hit !== undefined) return hit;
  for (const p of index.prefixes) {
    if (p.key.every((lit, i) => meets(values[i], lit))) return p.element;
  }
  return undefined;
}
