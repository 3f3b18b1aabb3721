// The reader of the transaction text: what kube-proxy hands `nft -f`, and what upstream's tests
// expect (knftables' fake Dump() writes a table in the same form, one `add` per object). Each
// line is `<verb> <kind> <family> <table> <object>`:
//
//   add table ip kube-proxy { comment "rules for kube-proxy" ; }
//   add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }
//   add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
//   add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
//   add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-… }
//   flush chain ip kube-proxy services
//   delete rule ip kube-proxy services handle 7
//
// Blank lines and `#` lines are skipped (as knftables' ParseDump and upstream's test sort do).
// Every line names the same family and table. A rule's text is kept as written; its trailing
// `comment "…"` is taken out, as knftables' parser does (a rule's text itself has no `"`).
// upstream: sigs.k8s.io/knftables v0.0.18 objects.go (writeOperation and parse of each object),
// fake.go (ParseDump); the version Kubernetes v1.33's go.mod requires.

import { ok } from '@kubesvc/api-types';
import type { NftChainSpec, NftFamily, NftObject, NftOperation, NftTable, NftTransaction, NftVerb } from '../model/types.js';
import { elementsFrom, setSpecFrom } from './objects.js';
import { braceStatements, joinWords, parseError, words, type ParseResult, type Word } from './words.js';

const VERBS: readonly NftVerb[] = ['add', 'create', 'insert', 'replace', 'delete', 'destroy', 'flush'];
const KINDS = ['table', 'chain', 'rule', 'set', 'map', 'element'] as const;
type Kind = (typeof KINDS)[number];

/** Which verbs knftables allows on each kind (objects.go, each validate). */
const ALLOWED: Readonly<Record<Kind, readonly NftVerb[]>> = {
  table: ['add', 'create', 'flush', 'delete', 'destroy'],
  chain: ['add', 'create', 'flush', 'delete', 'destroy'],
  rule: ['add', 'insert', 'replace', 'delete', 'destroy'],
  set: ['add', 'create', 'flush', 'delete', 'destroy'],
  map: ['add', 'create', 'flush', 'delete', 'destroy'],
  element: ['add', 'create', 'delete', 'destroy'],
};

export interface ParseTransactionOptions {
  /** The family when the text has no line (default `ip`); a line naming another is refused. */
  readonly family?: NftFamily;
  /** The table when the text has no line (default `kube-proxy`); a line naming another is refused. */
  readonly table?: string;
  /**
   * The table the transaction will be applied to: tells whether an element deleted by key
   * alone belongs to a set or a map when the transaction does not declare it.
   */
  readonly current?: NftTable;
}

const HEAD = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/;
const RULE = /^(\S+)(?:\s+index\s+(\d+))?(?:\s+handle\s+(\d+))?(?:\s+([^"]*?))?(?:\s+comment\s+("(?:[^"\\]|\\.)*"))?\s*$/;

/** A transaction text as an NftTransaction, or the first line that could not be read. */
export function parseTransaction(text: string, options: ParseTransactionOptions = {}): ParseResult<NftTransaction> {
  if (typeof text !== 'string') return parseError(1, `expected a transaction text, got ${typeof text}`);
  let family: NftFamily | undefined = options.family;
  let table: string | undefined = options.table;
  const declared = new Map<string, 'set' | 'map'>();
  const operations: NftOperation[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const head = HEAD.exec(line);
    if (head === null) return parseError(n, `expected "<verb> <kind> <family> <table> ...", got ${JSON.stringify(line)}`);
    const [, verbText = '', kindText = '', familyText = '', tableText = '', rest = ''] = head;
    const verb = VERBS.find((v) => v === verbText);
    if (verb === undefined) return parseError(n, `unknown verb ${JSON.stringify(verbText)}`);
    const kind = KINDS.find((k) => k === kindText);
    if (kind === undefined) return parseError(n, `unsupported object ${JSON.stringify(kindText)} (kube-proxy writes tables, chains, rules, sets, maps and elements)`);
    if (!ALLOWED[kind].includes(verb)) return parseError(n, `${verb} is not implemented for ${kind}s`);
    if (familyText !== 'ip' && familyText !== 'ip6') return parseError(n, `unsupported family ${JSON.stringify(familyText)} (expected ip or ip6)`);
    if (tableText === 'handle') return parseError(n, 'objects by handle are not supported; name the table');
    if (family !== undefined && family !== familyText) return parseError(n, `family ${familyText}, but the transaction is on family ${family}`);
    if (table !== undefined && table !== tableText) return parseError(n, `table ${tableText}, but the transaction is on table ${table}`);
    family = familyText;
    table = tableText;
    const objects = parseObject(kind, verb, rest, declared, options.current);
    if (typeof objects === 'string') return parseError(n, objects);
    for (const object of objects) operations.push({ verb, object });
  }
  return ok({ family: family ?? 'ip', table: table ?? 'kube-proxy', operations });
}

function parseObject(
  kind: Kind,
  verb: NftVerb,
  rest: string,
  declared: Map<string, 'set' | 'map'>,
  current: NftTable | undefined,
): NftObject[] | string {
  if (kind === 'rule') return parseRule(verb, rest);
  const ws = words(rest);
  if (typeof ws === 'string') return ws;
  const withBody = verb === 'add' || verb === 'create';
  switch (kind) {
    case 'table': {
      if (ws.length === 0) return [{ kind: 'table', table: {} }];
      if (!withBody) return `unexpected ${joinWords(ws)} after the table`;
      const body = braceStatements(ws, 0);
      if (typeof body === 'string') return body;
      if (body.next !== ws.length) return `unexpected ${joinWords(ws.slice(body.next))}`;
      let comment: string | undefined;
      for (const statement of body.statements) {
        const [head, text, ...more] = statement;
        if (head?.text !== 'comment' || head.quoted || text === undefined || !text.quoted || more.length > 0) {
          return `unsupported table property ${joinWords(statement)}`;
        }
        comment = text.text;
      }
      return [{ kind: 'table', table: comment === undefined ? {} : { comment } }];
    }
    case 'chain': {
      const [name, ...more] = ws;
      if (name === undefined || name.quoted || name.text === '{') return 'no name specified for chain';
      if (name.text === 'handle') return 'objects by handle are not supported; name the chain';
      if (more.length === 0) return [{ kind: 'chain', chain: { name: name.text } }];
      if (!withBody) return `unexpected ${joinWords(more)} after the chain`;
      const body = braceStatements(ws, 1);
      if (typeof body === 'string') return body;
      if (body.next !== ws.length) return `unexpected ${joinWords(ws.slice(body.next))}`;
      const spec = chainSpecFrom(name.text, body.statements);
      return typeof spec === 'string' ? spec : [{ kind: 'chain', chain: spec }];
    }
    case 'set':
    case 'map': {
      const [name, ...more] = ws;
      if (name === undefined || name.quoted || name.text === '{') return `no name specified for ${kind}`;
      if (name.text === 'handle') return `objects by handle are not supported; name the ${kind}`;
      declared.set(name.text, kind);
      if (!withBody) {
        if (more.length > 0) return `unexpected ${joinWords(more)} after the ${kind}`;
        return [{ kind, set: { name: name.text } }];
      }
      const body = braceStatements(ws, 1);
      if (typeof body === 'string') return body;
      if (body.next !== ws.length) return `unexpected ${joinWords(ws.slice(body.next))}`;
      const spec = setSpecFrom(name.text, body.statements);
      if (typeof spec === 'string') return spec;
      const isMap = (spec.type ?? spec.typeOf ?? '').includes(' : ');
      if (isMap !== (kind === 'map')) return `${name.text}: a ${kind === 'map' ? 'map has a value type (" : ")' : 'set has no value type'}`;
      return [{ kind, set: spec }];
    }
    case 'element': {
      const [name] = ws;
      if (name === undefined || name.quoted || name.text === '{') return 'no set/map name specified for element';
      const open = ws[1];
      const close = ws[ws.length - 1];
      if (open?.text !== '{' || close?.text !== '}' || ws.length < 4) return `expected ${name.text} { key ... }`;
      const elements = elementsFrom(name.text, ws.slice(2, -1));
      if (typeof elements === 'string') return elements;
      const out: NftObject[] = [];
      for (const element of elements) {
        const known = declared.get(name.text) ?? current?.sets.get(name.text)?.kind;
        const of = known ?? (element.value === undefined ? 'set' : 'map');
        if (withBody && (of === 'map') !== (element.value !== undefined)) {
          return of === 'map' ? `no map value specified for map element` : `map value specified for set element`;
        }
        if (!withBody && element.value !== undefined) return `unexpected value in ${verb} element`;
        out.push({ kind: 'element', of, element });
      }
      return out;
    }
  }
}

function chainSpecFrom(name: string, statements: readonly (readonly Word[])[]): NftChainSpec | string {
  let type: string | undefined;
  let hook: string | undefined;
  let priority: string | undefined;
  let comment: string | undefined;
  for (const statement of statements) {
    const [head] = statement;
    if (head === undefined) continue;
    if (!head.quoted && head.text === 'type') {
      // type T hook H [device "D"] priority P
      const t = statement[1];
      const h = statement[2];
      const hv = statement[3];
      if (t === undefined || h?.text !== 'hook' || hv === undefined) return `${name}: expected type <type> hook <hook> priority <priority>`;
      if (statement[4]?.text === 'device') return `${name}: chains with a device are not supported`;
      if (statement[4]?.text !== 'priority' || statement.length <= 5) return `${name}: a base chain needs a priority`;
      type = t.text;
      hook = hv.text;
      priority = joinWords(statement.slice(5));
      continue;
    }
    if (!head.quoted && head.text === 'comment') {
      const text = statement[1];
      if (text === undefined || !text.quoted || statement.length !== 2) return `${name}: expected comment "..."`;
      comment = text.text;
      continue;
    }
    if (!head.quoted && head.text === 'policy') {
      // The default; kube-proxy's chains never set another, and the tracer assumes accept.
      if (statement[1]?.text === 'accept' && statement.length === 2) continue;
      return `${name}: unsupported chain policy ${joinWords(statement.slice(1))}`;
    }
    return `${name}: unsupported chain property ${joinWords(statement)}`;
  }
  return {
    name,
    ...(type === undefined ? {} : { type }),
    ...(hook === undefined ? {} : { hook }),
    ...(priority === undefined ? {} : { priority }),
    ...(comment === undefined ? {} : { comment }),
  };
}

function parseRule(verb: NftVerb, rest: string): NftObject[] | string {
  const m = RULE.exec(rest);
  if (m === null) return 'failed parsing rule (a rule\'s text has no ", except its trailing comment "...")';
  const [, chain = '', index, handle, ruleText, commentText] = m;
  const rule = (ruleText ?? '').trim();
  if (chain === '') return 'no chain name specified for rule';
  if (index !== undefined && handle !== undefined) return 'cannot specify both index and handle';
  const needsRule = verb === 'add' || verb === 'insert' || verb === 'replace';
  if (needsRule && rule === '') return 'no rule specified';
  if (!needsRule && (rule !== '' || commentText !== undefined)) return `unexpected ${rest.slice(chain.length).trim()} in ${verb} rule`;
  if ((verb === 'replace' || verb === 'delete' || verb === 'destroy') && handle === undefined) return `must specify handle with ${verb}`;
  let comment: string | undefined;
  if (commentText !== undefined) {
    const ws = words(commentText);
    const [w] = typeof ws === 'string' ? [] : ws;
    if (w === undefined || !w.quoted) return `bad comment ${commentText}`;
    comment = w.text;
  }
  return [
    {
      kind: 'rule',
      rule: {
        chain,
        rule,
        ...(comment === undefined ? {} : { comment }),
        ...(index === undefined ? {} : { index: Number(index) }),
        ...(handle === undefined ? {} : { handle: Number(handle) }),
      },
    },
  ];
}
