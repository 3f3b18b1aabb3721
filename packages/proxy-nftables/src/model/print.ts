// A transaction as the text knftables hands to `nft -f`: one line per operation, each object
// written by its writeOperation, and the checks knftables makes when an operation is queued
// (its validate), whose failure it reports instead of running the transaction.
// upstream: sigs.k8s.io/knftables v0.0.18 (the version Kubernetes v1.33 vendors): objects.go
// (writeOperation and validate of Table, Chain, Rule, Set, Map, Element), transaction.go
// (String), util.go (ParsePriority). `destroy` is written as v0.0.19 and later write it: as
// `delete`, with the verb's own name.

import { err, goQuote, ok, type Result } from '@kubesvc/api-types';
import type { NftChainSpec, NftElementSpec, NftFamily, NftOperation, NftRuleSpec, NftSetSpec, NftTransaction, NftVerb } from './types.js';

/** An operation knftables would refuse to queue: its message, and which operation (0-based). */
export interface ErrNftPrint {
  readonly _tag: 'ErrNftPrint';
  /** knftables' validate error, e.g. `no name specified for chain`. */
  readonly message: string;
  readonly operation: number;
}

/** The numbers of nft's named priorities in the ip and ip6 families (util.go numericPriorities). */
const NAMED_PRIORITIES: Readonly<Record<string, number>> = {
  raw: -300,
  mangle: -150,
  dstnat: -100,
  filter: 0,
  security: 50,
  srcnat: 100,
};

/** Go's strconv.Atoi: an optional sign and decimal digits, within int64. */
function goAtoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * knftables' ParsePriority: a number, or a named priority with an optional `+N` / `-N`
 * (`dstnat-10` is -110); undefined when it is neither (then the text is written as it is).
 */
export function parsePriority(priority: string): number | undefined {
  const whole = goAtoi(priority);
  if (whole !== undefined) return whole;
  let name = priority;
  let offset = 0;
  const at = priority.search(/[+-]/);
  if (at !== -1) {
    const modifier = goAtoi(priority.slice(at));
    if (modifier === undefined) return undefined;
    offset = modifier;
    name = priority.slice(0, at);
  }
  const base = Object.hasOwn(NAMED_PRIORITIES, name) ? NAMED_PRIORITIES[name] : undefined;
  return base === undefined ? undefined : base + offset;
}

const notImplemented = (verb: NftVerb, what: string): string => `${verb} is not implemented for ${what}`;

function checkChain(verb: NftVerb, chain: NftChainSpec): string | undefined {
  if (chain.hook === undefined) {
    if (chain.type !== undefined || chain.priority !== undefined) return `regular chain ${goQuote(chain.name)} must not specify Type or Priority`;
  } else if (chain.type === undefined || chain.priority === undefined) {
    return `base chain ${goQuote(chain.name)} must specify Type and Priority`;
  }
  switch (verb) {
    case 'add':
    case 'create':
    case 'flush':
    case 'delete':
    case 'destroy':
      return chain.name === '' ? (verb === 'delete' || verb === 'destroy' ? 'must specify either name or handle' : 'no name specified for chain') : undefined;
    default:
      return notImplemented(verb, 'chains');
  }
}

function checkRule(verb: NftVerb, rule: NftRuleSpec): string | undefined {
  if (rule.chain === '') return 'no chain name specified for rule';
  if (rule.index !== undefined && rule.handle !== undefined) return 'cannot specify both Index and Handle';
  switch (verb) {
    case 'add':
    case 'insert':
      return rule.rule === '' ? 'no rule specified' : undefined;
    case 'replace':
      if (rule.rule === '') return 'no rule specified';
      return rule.handle === undefined ? `must specify Handle with ${verb}` : undefined;
    case 'delete':
    case 'destroy':
      return rule.handle === undefined ? `must specify Handle with ${verb}` : undefined;
    default:
      return notImplemented(verb, 'rules');
  }
}

function checkSet(verb: NftVerb, set: NftSetSpec, kind: 'set' | 'map'): string | undefined {
  switch (verb) {
    case 'add':
    case 'create':
      if ((set.type === undefined) === (set.typeOf === undefined)) return `${kind} must specify either Type or TypeOf`;
      return set.name === '' ? `no name specified for ${kind}` : undefined;
    case 'flush':
      return set.name === '' ? `no name specified for ${kind}` : undefined;
    case 'delete':
    case 'destroy':
      return set.name === '' ? 'must specify either name or handle' : undefined;
    default:
      return notImplemented(verb, `${kind}s`);
  }
}

function checkElement(verb: NftVerb, element: NftElementSpec, of: 'set' | 'map'): string | undefined {
  if (element.set === '') return 'no set/map name specified for element';
  if (element.key.length === 0) return 'no key specified for element';
  const values = element.value?.length ?? 0;
  if (of === 'set' && values !== 0) return 'map value specified for set element';
  switch (verb) {
    case 'add':
    case 'create':
      return of === 'map' && values === 0 ? 'no map value specified for map element' : undefined;
    case 'delete':
    case 'destroy':
      return undefined;
    default:
      return notImplemented(verb, 'elements');
  }
}

/** Why knftables would refuse `operation`, or undefined. */
export function checkOperation(operation: NftOperation): string | undefined {
  const { verb, object } = operation;
  switch (object.kind) {
    case 'table':
      return verb === 'add' || verb === 'create' || verb === 'flush' || verb === 'delete' || verb === 'destroy' ? undefined : notImplemented(verb, 'tables');
    case 'chain':
      return checkChain(verb, object.chain);
    case 'rule':
      return checkRule(verb, object.rule);
    case 'set':
    case 'map':
      return checkSet(verb, object.set, object.kind);
    case 'element':
      return checkElement(verb, object.element, object.of);
  }
}

const creates = (verb: NftVerb): boolean => verb === 'add' || verb === 'create';

function chainText(verb: NftVerb, head: string, chain: NftChainSpec): string {
  let text = `${head} ${chain.name}`;
  if (!creates(verb) || (chain.type === undefined && chain.comment === undefined)) return text;
  text += ' {';
  if (chain.type !== undefined) {
    text += ` type ${chain.type} hook ${chain.hook ?? ''}`;
    const priority = chain.priority ?? '';
    const number = parsePriority(priority);
    text += ` priority ${number === undefined ? priority : String(number)} ;`;
  }
  if (chain.comment !== undefined) text += ` comment ${goQuote(chain.comment)} ;`;
  return `${text} }`;
}

function ruleText(verb: NftVerb, head: string, rule: NftRuleSpec): string {
  let text = `${head} ${rule.chain}`;
  if (rule.index !== undefined) text += ` index ${rule.index}`;
  else if (rule.handle !== undefined) text += ` handle ${rule.handle}`;
  if (verb === 'add' || verb === 'insert' || verb === 'replace') {
    text += ` ${rule.rule}`;
    if (rule.comment !== undefined) text += ` comment ${goQuote(rule.comment)}`;
  }
  return text;
}

function setText(verb: NftVerb, head: string, set: NftSetSpec): string {
  const text = `${head} ${set.name}`;
  if (!creates(verb)) return text;
  const parts = [set.type !== undefined ? ` type ${set.type} ;` : ` typeof ${set.typeOf ?? ''} ;`];
  if (set.flags !== undefined && set.flags.length > 0) parts.push(` flags ${set.flags.join(',')} ;`);
  if (set.timeout !== undefined) parts.push(` timeout ${set.timeout} ;`);
  if (set.comment !== undefined) parts.push(` comment ${goQuote(set.comment)} ;`);
  return `${text} {${parts.join('')} }`;
}

function elementText(verb: NftVerb, head: string, element: NftElementSpec): string {
  let text = `${head} ${element.set} { ${element.key.join(' . ')}`;
  if (creates(verb)) {
    if (element.comment !== undefined) text += ` comment ${goQuote(element.comment)}`;
    if (element.value !== undefined && element.value.length > 0) text += ` : ${element.value.join(' . ')}`;
  }
  return `${text} }`;
}

/**
 * One operation's line, without its newline, as knftables' writeOperation writes it for a
 * table `table` of `family`. It does not check the operation (checkOperation does).
 */
export function printOperation(operation: NftOperation, family: NftFamily, table: string): string {
  const { verb, object } = operation;
  const head = `${verb} ${object.kind} ${family} ${table}`;
  switch (object.kind) {
    case 'table': {
      const comment = object.table.comment;
      return creates(verb) && comment !== undefined ? `${head} { comment ${goQuote(comment)} ; }` : head;
    }
    case 'chain':
      return chainText(verb, head, object.chain);
    case 'rule':
      return ruleText(verb, head, object.rule);
    case 'set':
    case 'map':
      return setText(verb, head, object.set);
    case 'element':
      return elementText(verb, head, object.element);
  }
}

/**
 * The transaction's text for `nft -f`: each operation's line and a newline (knftables'
 * Transaction.String). An operation knftables would refuse to queue makes the whole
 * transaction an error, as knftables then refuses to run it.
 */
export function printTransaction(transaction: NftTransaction): Result<string, ErrNftPrint> {
  const lines: string[] = [];
  for (let i = 0; i < transaction.operations.length; i++) {
    const operation = transaction.operations[i] as NftOperation;
    const problem = checkOperation(operation);
    if (problem !== undefined) return err({ _tag: 'ErrNftPrint', message: problem, operation: i });
    lines.push(printOperation(operation, transaction.family, transaction.table), '\n');
  }
  return ok(lines.join(''));
}
