// The transaction being written: knftables' Transaction verbs (Add, Flush, Delete) over this
// model's objects, and the element storage of the proxier's six sets and maps.
// upstream: sigs.k8s.io/knftables transaction.go; pkg/proxy/nftables/proxier.go (v1.33:
// ensureChain, nftElementStorage, joinNFTSlice).

import { PersistentMap, type PersistentMapEditor } from '../model/persistent-map.js';
import type { NftChainSpec, NftElementSpec, NftObject, NftOperation, NftRuleSpec, NftSetSpec, NftVerb } from '../model/types.js';

/**
 * The transaction being written, one knftables call at a time. `ObjectTxWriter` keeps the
 * operations (the transaction value); `TextTxWriter` prints each as knftables would and keeps
 * only the text, for a caller that needs nothing else.
 */
export abstract class TxWriter {
  /** One operation of the transaction. */
  protected abstract push(verb: NftVerb, object: NftObject): void;

  addTable(comment: string): void {
    this.push('add', { kind: 'table', table: { comment } });
  }
  addChain(chain: NftChainSpec): void {
    this.push('add', { kind: 'chain', chain });
  }
  flushChain(name: string): void {
    this.push('flush', { kind: 'chain', chain: { name } });
  }
  deleteChain(name: string): void {
    this.push('delete', { kind: 'chain', chain: { name } });
  }
  addRule(chain: string, rule: string, comment?: string): void {
    const spec: NftRuleSpec = comment === undefined ? { chain, rule } : { chain, rule, comment };
    this.push('add', { kind: 'rule', rule: spec });
  }
  addSet(kind: 'set' | 'map', set: NftSetSpec): void {
    this.push('add', { kind, set });
  }
  flushSet(kind: 'set' | 'map', name: string): void {
    this.push('flush', { kind, set: { name } });
  }
  deleteSet(kind: 'set' | 'map', name: string): void {
    this.push('delete', { kind, set: { name } });
  }
  addElement(of: 'set' | 'map', element: NftElementSpec): void {
    this.push('add', { kind: 'element', of, element });
  }
  deleteElement(of: 'set' | 'map', element: NftElementSpec): void {
    this.push('delete', { kind: 'element', of, element });
  }

  /**
   * ensureChain: the first time `chain` is named in this sync, note it in `created` and
   * (unless `skipCreation`) add and flush it, so that it holds only what this sync writes.
   */
  ensureChain(chain: string, created: Set<string>, skipCreation: boolean): void {
    if (created.has(chain)) return;
    created.add(chain);
    if (skipCreation) return;
    this.addChain({ name: chain });
    this.flushChain(chain);
  }
}

/** A writer that keeps the operations: the transaction as a value. */
export class ObjectTxWriter extends TxWriter {
  readonly operations: NftOperation[] = [];

  protected push(verb: NftVerb, object: NftObject): void {
    this.operations.push({ verb, object });
  }
}

/** joinNFTSlice: a key or a value as nft writes it, its parts joined by ` . `. */
export function joinNft(parts: readonly string[] | undefined): string {
  return (parts ?? []).join(' . ');
}

/**
 * nftElementStorage: what the proxier knows one of its sets or maps holds (key text to value
 * text), so that a partial sync only adds, replaces (delete and add) or deletes what changed.
 * `elements` is the state a sync starts from (a persistent map: it is never changed, and the
 * storage's copy costs what changes). With `leftovers`, the storage notes every key no service
 * port ensured, for cleanup (a full walk, as upstream does); without, the caller names the
 * keys to delete (deleteKeys).
 */
export class ElementStorage {
  private readonly elements: PersistentMapEditor<string, string>;
  private readonly leftover: Set<string> | undefined;
  /** Called with each key ensured (what a service port claims). */
  claim: ((key: string) => void) | undefined;

  constructor(
    readonly of: 'set' | 'map',
    readonly name: string,
    elements: ReadonlyMap<string, string>,
    leftovers: boolean,
  ) {
    this.elements = PersistentMap.from(elements).edit();
    this.leftover = leftovers ? new Set(elements.keys()) : undefined;
  }

  /** reset: forget every element and flush the set or map (a full sync). */
  reset(tx: TxWriter): void {
    this.elements.clear();
    tx.flushSet(this.of, this.name);
    this.leftover?.clear();
  }

  /** ensureElem: add the element unless it is there with the same value; replace it when its value changed. */
  ensure(tx: TxWriter, element: NftElementSpec): void {
    const key = joinNft(element.key);
    const value = joinNft(element.value);
    this.claim?.(key);
    const existing = this.elements.get(key);
    if (existing === undefined) {
      tx.addElement(this.of, element);
      this.elements.set(key, value);
      return;
    }
    if (existing !== value) {
      tx.deleteElement(this.of, element);
      tx.addElement(this.of, element);
      this.elements.set(key, value);
    }
    this.leftover?.delete(key);
  }

  /** cleanupLeftoverKeys: delete what no service port ensured in this sync. */
  cleanup(tx: TxWriter): void {
    if (this.leftover === undefined) return;
    this.deleteKeys(tx, this.leftover);
    this.leftover.clear();
  }

  /** Deletes `keys` (those held), in the order the storage holds them (the order upstream's cleanup walks it). */
  deleteKeys(tx: TxWriter, keys: Iterable<string>): void {
    const held: string[] = [];
    for (const key of keys) if (this.elements.has(key)) held.push(key);
    if (held.length > 1) held.sort((a, b) => (this.elements.orderOf(a) ?? 0) - (this.elements.orderOf(b) ?? 0));
    for (const key of held) {
      tx.deleteElement(this.of, { set: this.name, key: key.split(' . ') });
      this.elements.delete(key);
    }
  }

  /** What the set or map holds after this sync (for the next). */
  snapshot(): PersistentMap<string, string> {
    return this.elements.done();
  }
}
