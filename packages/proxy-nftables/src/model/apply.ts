// A transaction applied to a table, as the kernel applies what `nft -f` sends: every
// operation in order, the whole transaction or nothing. What each verb does follows nft(8)
// and the kernel's nf_tables API (net/netfilter/nf_tables_api.c):
// - `add` of an object that exists changes nothing; `create` of one is EEXIST. An element
//   added to a map under a key the map holds with another value is EEXIST (the kernel's
//   element clash; checked with nft 1.0.6 on Linux 6.x), so a proxier that changes an
//   element's value deletes it first.
// - `delete` of an object that does not exist is ENOENT; `destroy` of one changes nothing
//   (`destroy` needs nft 1.0.8 and Linux 6.3; kube-proxy v1.33 does not use it).
//   A deleted chain takes its rules with it (the kernel's nf_tables_delchain deletes them).
// - `flush chain` removes its rules, `flush set` / `flush map` its elements, `flush table`
//   the rules of every chain (nft(8): "Flush all chains and rules of the specified table").
// - a rule is appended (`add`) or prepended (`insert`); with `index N` it goes after
//   (`add`) or before (`insert`) the rule at position N, with `handle H` after or before the
//   rule with that handle; `replace` and `delete` address a rule by handle.
// Not checked here: that a deleted chain, set or map is no longer referenced by a rule or an
// element (the kernel refuses that with EBUSY), and that a rule's text is valid nft. The
// real-kernel tests load the builder's transactions with `nft -f` to check both.
// knftables' fake (fake.go), which upstream's unit tests use, differs where the kernel is
// stricter: it replaces a map element's value, and its `flush table` empties the table.

import { err, ok, type Result } from '@kubesvc/api-types';
import type {
  NftChain,
  NftElement,
  NftFamily,
  NftObject,
  NftOperation,
  NftRule,
  NftRuleSpec,
  NftSet,
  NftTable,
  NftTransaction,
} from './types.js';
import { PersistentMap, type PersistentMapEditor } from './persistent-map.js';

/** The errno the kernel (or nft) answers with, and its text as nft prints it. */
export type NftErrno = 'ENOENT' | 'EEXIST' | 'EBUSY' | 'EINVAL';

const ERRNO_TEXT: Readonly<Record<NftErrno, string>> = {
  ENOENT: 'No such file or directory',
  EEXIST: 'File exists',
  EBUSY: 'Device or resource busy',
  EINVAL: 'Invalid argument',
};

/** A refused transaction: which operation (0-based) failed, and why. Nothing was applied. */
export interface ErrNftApply {
  readonly _tag: 'ErrNftApply';
  /** `<operation>: <errno text>`, e.g. `delete chain ip kube-proxy foo: No such file or directory`. */
  readonly message: string;
  readonly operation: number;
  readonly errno: NftErrno;
}

/** The key of an element as nft writes it: its parts joined by ` . `. */
export function elementKey(key: readonly string[]): string {
  return key.join(' . ');
}

/** An empty table of `family` and `name`, as `add table` makes it. */
export function emptyTable(family: NftFamily, name: string, comment?: string): NftTable {
  return {
    family,
    name,
    spec: comment === undefined ? {} : { comment },
    chains: new Map(),
    sets: new Map(),
    nextHandle: 1,
  };
}

/**
 * `transaction` applied to `table` (undefined: no such table yet). The result is a new
 * table; `table` is left as it was, and on an error nothing is applied.
 */
export function applyTransaction(table: NftTable | undefined, transaction: NftTransaction): Result<NftTable | undefined, ErrNftApply> {
  if (table !== undefined && (table.family !== transaction.family || table.name !== transaction.table)) {
    return err({
      _tag: 'ErrNftApply',
      message: `the transaction is for table ${transaction.family} ${transaction.table}, not ${table.family} ${table.name}`,
      operation: 0,
      errno: 'EINVAL',
    });
  }
  const work = new Working(table, transaction.family, transaction.table);
  for (let i = 0; i < transaction.operations.length; i++) {
    const operation = transaction.operations[i] as NftOperation;
    const errno = work.apply(operation);
    if (errno !== undefined) {
      return err({
        _tag: 'ErrNftApply',
        message: `${describeOperation(operation, transaction.family, transaction.table)}: ${ERRNO_TEXT[errno]}`,
        operation: i,
        errno,
      });
    }
  }
  return ok(work.result());
}

/** An operation named as nft would: `delete chain ip kube-proxy foo`, `add element ip kube-proxy m { 1.2.3.4 }`. */
export function describeOperation(operation: NftOperation, family: NftFamily, table: string): string {
  const head = `${operation.verb} ${operation.object.kind} ${family} ${table}`;
  const object = operation.object;
  switch (object.kind) {
    case 'table':
      return `${operation.verb} table ${family} ${table}`;
    case 'chain':
      return `${head} ${object.chain.name}`;
    case 'rule': {
      const where =
        object.rule.handle !== undefined ? ` handle ${object.rule.handle}` : object.rule.index !== undefined ? ` index ${object.rule.index}` : '';
      return `${head} ${object.rule.chain}${where}`;
    }
    case 'set':
    case 'map':
      return `${head} ${object.set.name}`;
    case 'element':
      return `${operation.verb} element ${family} ${table} ${object.element.set} { ${elementKey(object.element.key)} }`;
  }
}

/**
 * The table being changed: its chains, sets and a set's elements are persistent maps
 * (model/persistent-map.ts), so that a transaction costs what it changes, not the table's size;
 * a chain's rules are copied the first time an operation changes them.
 */
class Working {
  private exists: boolean;
  private spec: NftTable['spec'];
  private readonly chains: PersistentMapEditor<string, NftChain>;
  private readonly sets: PersistentMapEditor<string, NftSet>;
  private nextHandle: number;
  private readonly ownRules = new Map<string, NftRule[]>();
  private readonly ownElements = new Map<string, PersistentMapEditor<string, NftElement>>();

  constructor(
    table: NftTable | undefined,
    private readonly family: NftFamily,
    private readonly name: string,
  ) {
    this.exists = table !== undefined;
    this.spec = table?.spec ?? {};
    this.chains = PersistentMap.from(table?.chains).edit();
    this.sets = PersistentMap.from(table?.sets).edit();
    this.nextHandle = table?.nextHandle ?? 1;
  }

  result(): NftTable | undefined {
    if (!this.exists) return undefined;
    for (const [name, rules] of this.ownRules) {
      const chain = this.chains.get(name);
      if (chain !== undefined) this.chains.set(name, { spec: chain.spec, rules });
    }
    for (const [name, elements] of this.ownElements) {
      const set = this.sets.get(name);
      if (set !== undefined) this.sets.set(name, { kind: set.kind, spec: set.spec, elements: elements.done() });
    }
    return { family: this.family, name: this.name, spec: this.spec, chains: this.chains.done(), sets: this.sets.done(), nextHandle: this.nextHandle };
  }

  apply(operation: NftOperation): NftErrno | undefined {
    const { verb, object } = operation;
    if (object.kind === 'table') return this.table(verb, object);
    if (!this.exists) return verb === 'destroy' ? undefined : 'ENOENT';
    switch (object.kind) {
      case 'chain':
        return this.chain(verb, object);
      case 'rule':
        return this.rule(verb, object.rule);
      case 'set':
      case 'map':
        return this.set(verb, object);
      case 'element':
        return this.element(verb, object);
    }
  }

  private table(verb: NftOperation['verb'], object: Extract<NftObject, { kind: 'table' }>): NftErrno | undefined {
    switch (verb) {
      case 'add':
      case 'create':
        if (this.exists) return verb === 'create' ? 'EEXIST' : undefined;
        this.exists = true;
        this.spec = object.table;
        return undefined;
      case 'delete':
      case 'destroy':
        if (!this.exists) return verb === 'delete' ? 'ENOENT' : undefined;
        this.exists = false;
        this.spec = {};
        this.chains.clear();
        this.sets.clear();
        this.ownRules.clear();
        this.ownElements.clear();
        return undefined;
      case 'flush':
        if (!this.exists) return 'ENOENT';
        for (const name of this.chains.keys()) this.ownRules.set(name, []);
        return undefined;
      default:
        return 'EINVAL';
    }
  }

  private chain(verb: NftOperation['verb'], object: Extract<NftObject, { kind: 'chain' }>): NftErrno | undefined {
    const name = object.chain.name;
    const existing = this.chains.get(name);
    switch (verb) {
      case 'add':
      case 'create':
        if (existing !== undefined) return verb === 'create' ? 'EEXIST' : undefined;
        this.chains.set(name, { spec: object.chain, rules: [] });
        this.ownRules.set(name, []);
        this.nextHandle++;
        return undefined;
      case 'flush':
        if (existing === undefined) return 'ENOENT';
        this.ownRules.set(name, []);
        return undefined;
      case 'delete':
      case 'destroy':
        if (existing === undefined) return verb === 'delete' ? 'ENOENT' : undefined;
        this.chains.delete(name);
        this.ownRules.delete(name);
        return undefined;
      default:
        return 'EINVAL';
    }
  }

  private rulesOf(chain: string): readonly NftRule[] {
    return this.ownRules.get(chain) ?? this.chains.get(chain)?.rules ?? [];
  }

  private ownRulesOf(chain: string): NftRule[] {
    let rules = this.ownRules.get(chain);
    if (rules === undefined) {
      rules = [...(this.chains.get(chain)?.rules ?? [])];
      this.ownRules.set(chain, rules);
    }
    return rules;
  }

  private rule(verb: NftOperation['verb'], spec: NftRuleSpec): NftErrno | undefined {
    if (!this.chains.has(spec.chain)) return verb === 'destroy' ? undefined : 'ENOENT';
    const current = this.rulesOf(spec.chain);
    const at = spec.handle !== undefined ? current.findIndex((r) => r.handle === spec.handle) : spec.index;
    if (spec.handle !== undefined && at === -1) return verb === 'destroy' ? undefined : 'ENOENT';
    if (spec.handle === undefined && at !== undefined && (at < 0 || at >= current.length)) return 'ENOENT';
    const rule = (): NftRule => ({
      rule: spec.rule,
      ...(spec.comment === undefined ? {} : { comment: spec.comment }),
      handle: this.nextHandle++,
    });
    switch (verb) {
      case 'add':
        this.ownRulesOf(spec.chain).splice(at === undefined ? current.length : at + 1, 0, rule());
        return undefined;
      case 'insert':
        this.ownRulesOf(spec.chain).splice(at ?? 0, 0, rule());
        return undefined;
      case 'replace':
        if (spec.handle === undefined || at === undefined) return 'EINVAL';
        this.ownRulesOf(spec.chain)[at] = { rule: spec.rule, ...(spec.comment === undefined ? {} : { comment: spec.comment }), handle: spec.handle };
        return undefined;
      case 'delete':
      case 'destroy':
        if (spec.handle === undefined || at === undefined) return 'EINVAL';
        this.ownRulesOf(spec.chain).splice(at, 1);
        return undefined;
      default:
        return 'EINVAL';
    }
  }

  private set(verb: NftOperation['verb'], object: Extract<NftObject, { kind: 'set' | 'map' }>): NftErrno | undefined {
    const name = object.set.name;
    const existing = this.sets.get(name);
    if (existing !== undefined && existing.kind !== object.kind && verb !== 'add' && verb !== 'create') return 'ENOENT';
    switch (verb) {
      case 'add':
      case 'create':
        if (existing !== undefined) return verb === 'create' || existing.kind !== object.kind ? 'EEXIST' : undefined;
        this.sets.set(name, { kind: object.kind, spec: object.set, elements: new Map() });
        this.ownElements.set(name, PersistentMap.empty<string, NftElement>().edit());
        this.nextHandle++;
        return undefined;
      case 'flush':
        if (existing === undefined) return 'ENOENT';
        this.ownElements.set(name, PersistentMap.empty<string, NftElement>().edit());
        return undefined;
      case 'delete':
      case 'destroy':
        if (existing === undefined) return verb === 'delete' ? 'ENOENT' : undefined;
        this.sets.delete(name);
        this.ownElements.delete(name);
        return undefined;
      default:
        return 'EINVAL';
    }
  }

  private element(verb: NftOperation['verb'], object: Extract<NftObject, { kind: 'element' }>): NftErrno | undefined {
    const spec = object.element;
    const set = this.sets.get(spec.set);
    if (set === undefined || set.kind !== object.of) return verb === 'destroy' ? undefined : 'ENOENT';
    const key = elementKey(spec.key);
    let elements = this.ownElements.get(spec.set);
    const present = (elements ?? set.elements).get(key);
    switch (verb) {
      case 'add':
      case 'create': {
        if (present !== undefined) {
          if (verb === 'create') return 'EEXIST';
          return sameValue(present.value, spec.value) ? undefined : 'EEXIST';
        }
        if (elements === undefined) {
          elements = PersistentMap.from(set.elements).edit();
          this.ownElements.set(spec.set, elements);
        }
        elements.set(key, {
          key: spec.key,
          ...(spec.value === undefined ? {} : { value: spec.value }),
          ...(spec.comment === undefined ? {} : { comment: spec.comment }),
        });
        return undefined;
      }
      case 'delete':
      case 'destroy':
        if (present === undefined) return verb === 'delete' ? 'ENOENT' : undefined;
        if (elements === undefined) {
          elements = PersistentMap.from(set.elements).edit();
          this.ownElements.set(spec.set, elements);
        }
        elements.delete(key);
        return undefined;
      default:
        return 'EINVAL';
    }
  }
}

function sameValue(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((part, i) => part === b[i]);
}
