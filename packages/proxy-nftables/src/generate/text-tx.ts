// A transaction written straight as the text knftables hands to `nft -f`, without the
// operation values: a first sync of 10,000 Services writes some 460,000 operations, and a
// caller that loads the text needs none of them. The lines are those model/print.ts writes
// for the same operations (the transaction tests compare the two); the frequent ones (regular
// chains, rules, elements) are written here directly, the others through printOperation.
// upstream: sigs.k8s.io/knftables v0.0.18 transaction.go (String), objects.go (writeOperation).

import { goQuote } from '@kubesvc/api-types';
import { checkOperation, printOperation } from '../model/print.js';
import type { NftElementSpec, NftFamily, NftObject, NftVerb } from '../model/types.js';
import type { NftablesRuleStats } from './generate.js';
import type { NftTextBuffer } from './text-buffer.js';
import { TxWriter } from './tx.js';

/** How long the text gathered in a string grows before it is encoded into the buffer. */
const GATHERED = 1 << 15;

/**
 * A writer that keeps only the text, and what it makes (NftablesRuleStats) for a transaction
 * on an empty table. The first operation knftables would refuse is noted in `problem` (and
 * written nevertheless: the caller refuses the whole text).
 */
export class TextTxWriter extends TxWriter {
  private readonly addChainHead: string;
  private readonly flushChainHead: string;
  private readonly addRuleHead: string;
  private readonly addElementHead: string;
  private readonly deleteElementHead: string;
  /** Chains added and deleted by name, but for those ensureChain makes (counted: it makes each once). */
  private readonly namedChains = new Set<string>();
  private ensuredChains = 0;
  private readonly sets = new Set<string>();
  private rules = 0;
  private elements = 0;
  problem: string | undefined;
  /**
   * Every service and endpoint chain the sync names is named once (see distinctServiceChains):
   * ensureChain need not remember them to make each once. The caller does not read the set of
   * chains made then.
   */
  distinctServiceChains = false;

  constructor(
    private readonly family: NftFamily,
    private readonly table: string,
    /** Where the text goes (reset by the caller). */
    readonly out: NftTextBuffer,
  ) {
    super();
    const of = ` ${family} ${table} `;
    this.addChainHead = `add chain${of}`;
    this.flushChainHead = `flush chain${of}`;
    this.addRuleHead = `add rule${of}`;
    this.addElementHead = `add element${of}`;
    this.deleteElementHead = `delete element${of}`;
  }

  /** Text gathered since the last encoding: short strings joined first cost one encoding per 32 KiB, not one each. */
  private pending = '';

  private line(text: string): void {
    this.pending += text;
    if (this.pending.length >= GATHERED) this.finish();
  }

  /** Encodes what was gathered into `out`; call it once the last operation is written. */
  finish(): void {
    this.out.write(this.pending);
    this.pending = '';
  }

  protected push(verb: NftVerb, object: NftObject): void {
    const problem = checkOperation({ verb, object });
    if (problem !== undefined) this.problem ??= problem;
    this.line(printOperation({ verb, object }, this.family, this.table) + '\n');
    switch (object.kind) {
      case 'chain':
        if (verb === 'add' || verb === 'create') this.namedChains.add(object.chain.name);
        else if (verb === 'delete' || verb === 'destroy') this.namedChains.delete(object.chain.name);
        break;
      case 'set':
      case 'map':
        if (verb === 'add' || verb === 'create') this.sets.add(object.set.name);
        else if (verb === 'delete' || verb === 'destroy') this.sets.delete(object.set.name);
        break;
      case 'rule':
        if (verb === 'add' || verb === 'insert') this.rules++;
        break;
      case 'element':
        if (verb === 'add' || verb === 'create') this.elements++;
        break;
      case 'table':
        break;
    }
  }

  override ensureChain(chain: string, created: Set<string>, skipCreation: boolean): void {
    if (this.distinctServiceChains && !skipCreation && chain.includes('/')) {
      this.ensuredChains++;
      this.line(this.addChainHead + chain + '\n' + this.flushChainHead + chain + '\n');
      return;
    }
    if (created.has(chain)) return;
    created.add(chain);
    if (skipCreation) return;
    if (chain === '') {
      super.addChain({ name: chain });
      super.flushChain(chain);
      return;
    }
    this.ensuredChains++;
    this.line(this.addChainHead + chain + '\n' + this.flushChainHead + chain + '\n');
  }

  override flushChain(name: string): void {
    if (name === '') super.flushChain(name);
    else this.line(this.flushChainHead + name + '\n');
  }

  override addRule(chain: string, rule: string, comment?: string): void {
    if (chain === '' || rule === '') {
      super.addRule(chain, rule, comment);
      return;
    }
    this.rules++;
    this.line(comment === undefined ? this.addRuleHead + chain + ' ' + rule + '\n' : this.addRuleHead + chain + ' ' + rule + ' comment ' + goQuote(comment) + '\n');
  }

  override addElement(of: 'set' | 'map', element: NftElementSpec): void {
    const values = element.value?.length ?? 0;
    if (element.set === '' || element.key.length === 0 || (of === 'set') !== (values === 0)) {
      super.addElement(of, element);
      return;
    }
    this.elements++;
    let text = this.addElementHead + element.set + ' { ' + element.key.join(' . ');
    if (element.comment !== undefined) text += ' comment ' + goQuote(element.comment);
    if (values > 0) text += ' : ' + (element.value as readonly string[]).join(' . ');
    this.line(text + ' }\n');
  }

  override deleteElement(of: 'set' | 'map', element: NftElementSpec): void {
    if (element.set === '' || element.key.length === 0 || (of === 'set' && (element.value?.length ?? 0) > 0)) {
      super.deleteElement(of, element);
      return;
    }
    this.line(this.deleteElementHead + element.set + ' { ' + element.key.join(' . ') + ' }\n');
  }

  /** What the text makes from an empty table (ensureChain's chains are never deleted in the same transaction). */
  stats(): NftablesRuleStats {
    return { chains: this.namedChains.size + this.ensuredChains, rules: this.rules, sets: this.sets.size, elements: this.elements };
  }
}
