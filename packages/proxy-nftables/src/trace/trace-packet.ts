// A pure interpreter of kube-proxy's nftables table: it follows one packet through the
// netfilter hooks a node runs it through, evaluating every rule of the base chains attached
// to each hook (in priority order), and returns every possible outcome with its exact
// probability. Randomness comes only from `numgen random mod N vmap { … }`: the run forks into
// N branches, each taken with probability 1/N as written (and, as the kernel draws, the share
// of 32-bit random numbers reciprocal_scale maps to it).
//
// Hooks, for a NEW packet (the first of a connection):
// - from a pod, another node or outside: prerouting, then routing on the (DNATed) destination:
//   to this host, input; else forward, then postrouting;
// - sent by this host: output, postrouting, and when the destination is local, the packet
//   comes back in through prerouting and input (loopback).
// A nat chain is consulted for NEW packets only, once per direction: the destination at
// prerouting or output, the source at postrouting or input (conntrack keeps the binding).
// nftables semantics modelled: `accept` ends the base chain (the next base chain of the hook
// still runs), `drop` and `reject` end the packet, `dnat` and `masquerade` end their base chain,
// `goto` replaces the chain on the stack and `jump` pushes it, a verdict map lookup that misses
// ends the rule, a chain that ends returns (a base chain's end is its policy, accept).
// upstream: pkg/proxy/nftables/helpers_test.go (nftablesTracer and tracePacket: the same idea,
// running filter-prerouting, nat-prerouting, filter-forward and filter-input by name for every
// packet and every endpoint at once, without hooks by priority or probabilities; which version
// the vectors follow is said in upstream.fixtures.ts); linux net/netfilter/nft_numgen.c
// (reciprocal_scale), nf_nat_core.c.

import { err, isRecord, ok, type Err, type Result } from '@kubesvc/api-types';
import {
  checkFamily,
  checkOptions,
  checkPacket,
  describeTraceInput as describe,
  parseAddress,
  RATIONAL_ONE,
  reduceRational as reduce,
  refuseTraceInput as refuse,
  type ErrTrace,
  type Packet,
  type Rational,
  type RecentEntry,
  consToArray,
  type Cons,
} from '@kubesvc/proxy';
import { applyTransaction } from '../model/apply.js';
import { PersistentMap } from '../model/persistent-map.js';
import type { NftFamily, NftRule, NftTable } from '../model/types.js';
import type { BaseChainHook as Hook } from '../names.js';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { findElement, tableIndex, type BaseChainRef, type SetIndex, type TableIndex } from './table-index.js';
import type { Field, Statement, Verdict } from './rule-program.js';
import { meets } from './table-index.js';
import type { Branch, MatchedRule, Trace, TraceOptions, TraceOutcome, TraceResult, TraceStep, Trail } from './trace-types.js';

/** Deeper than any kube-proxy chain nesting (5); catches loops. */
const MAX_DEPTH = 64;
const TWO_32 = 1n << 32n;

interface Frame {
  readonly chain: string;
  readonly rules: readonly NftRule[];
  index: number;
}

interface Thread {
  phase: number;
  hook: Hook | undefined;
  baseChains: readonly BaseChainRef[];
  baseAt: number;
  base: BaseChainRef | undefined;
  natConsulted: boolean;
  dstManip: boolean;
  srcManip: boolean;
  stack: Frame[];
  destination: bigint;
  port: number | undefined;
  mark: number;
  dnat: string | undefined;
  masqueraded: boolean;
  accepted: boolean;
  delivery: 'local' | 'forward' | undefined;
  written: Rational;
  kernel: Rational;
  matched: Cons<MatchedRule> | undefined;
  chains: Cons<string> | undefined;
  affinity: Cons<RecentEntry> | undefined;
  trail: Trail | undefined;
}

function fork(t: Thread): Thread {
  return { ...t, stack: t.stack.map((f) => ({ ...f })) };
}

const fail = (message: string): Err<ErrTrace> => err({ _tag: 'ErrTrace', message });

const checkedTables = new WeakMap<object, Err<ErrTrace> | undefined>();

/**
 * Whether a value has an NftTable's shape, down to each chain's rules and each set's elements;
 * remembered per object (a table is an immutable value, traced many times).
 */
function checkTable(value: unknown): NftTable | Err<ErrTrace> {
  if (!isRecord(value)) return refuse('table', `expected an NftTable, an nft ruleset listing or a transaction text, got ${describe(value)}`);
  if (!checkedTables.has(value)) checkedTables.set(value, tableProblem(value));
  return checkedTables.get(value) ?? (value as unknown as NftTable);
}

const isString = (v: unknown): v is string => typeof v === 'string';
const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const strings = (v: unknown): boolean => Array.isArray(v) && v.every(isString);

function tableProblem(value: Record<string, unknown>): Err<ErrTrace> | undefined {
  if (value['family'] !== 'ip' && value['family'] !== 'ip6') return refuse('table.family', `expected ip or ip6, got ${describe(value['family'])}`);
  const chains = value['chains'];
  const sets = value['sets'];
  if (!(chains instanceof Map || chains instanceof PersistentMap)) return refuse('table.chains', `expected a Map, got ${describe(chains)}`);
  if (!(sets instanceof Map || sets instanceof PersistentMap)) return refuse('table.sets', `expected a Map, got ${describe(sets)}`);
  for (const [name, chain] of chains as Map<unknown, unknown>) {
    const field = `table.chains[${JSON.stringify(String(name))}]`;
    if (!isString(name) || !isRecord(chain) || !isRecord(chain['spec']) || chain['spec']['name'] !== name) return refuse(field, 'expected { spec: { name, ... }, rules } under its name');
    const spec = chain['spec'];
    if (!optionalString(spec['type']) || !optionalString(spec['hook']) || !optionalString(spec['priority'])) return refuse(`${field}.spec`, 'type, hook and priority are texts');
    const rules = chain['rules'];
    if (!Array.isArray(rules) || !rules.every((r) => isRecord(r) && isString(r['rule']) && typeof r['handle'] === 'number')) return refuse(`${field}.rules`, 'expected an array of { rule, handle }');
  }
  for (const [name, set] of sets as Map<unknown, unknown>) {
    const field = `table.sets[${JSON.stringify(String(name))}]`;
    if (!isString(name) || !isRecord(set) || (set['kind'] !== 'set' && set['kind'] !== 'map') || !isRecord(set['spec']) || set['spec']['name'] !== name) {
      return refuse(field, "expected { kind: 'set' | 'map', spec: { name, ... }, elements } under its name");
    }
    if (!optionalString(set['spec']['type']) || !optionalString(set['spec']['timeout'])) return refuse(`${field}.spec`, 'type and timeout are texts');
    const elements = set['elements'];
    if (!(elements instanceof Map || elements instanceof PersistentMap)) return refuse(`${field}.elements`, `expected a Map, got ${describe(elements)}`);
    for (const e of (elements as Map<unknown, unknown>).values()) {
      if (!isRecord(e) || !strings(e['key']) || (e['value'] !== undefined && !strings(e['value']))) return refuse(`${field}.elements`, 'expected elements { key: string[], value?: string[] }');
    }
  }
  return undefined;
}

/**
 * Where a packet goes through kube-proxy's table, and with which probability. `table` is an
 * NftTable, the text `nft list ruleset` printed on a node, or a transaction text (what
 * kube-proxy hands `nft -f`, or upstream's expected ruleset), applied to an empty table. A
 * rule the tracer cannot evaluate, a jump to a chain or a lookup in a set that does not exist
 * is an error value; so is input of the wrong shape (an unknown protocol or entry point, a port
 * that is not one, an address that does not parse). The table's family decides how addresses
 * are read.
 */
export function tracePacket(table: NftTable | string, packet: Packet, options: TraceOptions): TraceResult {
  const familyOption = checkFamily(options);
  if (!familyOption.ok) return familyOption;
  let t: NftTable;
  if (typeof table === 'string') {
    const read = tableFromText(table, familyOption.value === 6 ? 'ip6' : 'ip');
    if (!read.ok) return read;
    t = read.value;
  } else {
    const checked = checkTable(table);
    if ('ok' in checked) return checked;
    t = checked;
  }
  const index = tableIndex(t);
  if (typeof index === 'string') return fail(index);
  const checkedPacket = checkPacket(packet, index.family);
  if (!checkedPacket.ok) return checkedPacket;
  const checkedOptions = checkOptions<TraceOutcome>(options);
  if (!checkedOptions.ok) return checkedOptions;
  return run(t, index, checkedPacket.value, checkedOptions.value);
}

/** A listing (its first line `table …`) or a transaction text, as a table. */
function tableFromText(text: string, family: NftFamily): Result<NftTable, ErrTrace> {
  const first = text.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  if (first?.trim().startsWith('table ') === true) {
    const parsed = parseListRuleset(text, { family });
    return parsed.ok ? parsed : err({ _tag: 'ErrTrace', message: parsed.error.message, line: parsed.error.line });
  }
  const tx = parseTransaction(text);
  if (!tx.ok) return err({ _tag: 'ErrTrace', message: tx.error.message, line: tx.error.line });
  const applied = applyTransaction(undefined, tx.value);
  if (!applied.ok) return fail(applied.error.message);
  if (applied.value === undefined) return fail('the transaction leaves no table');
  return ok(applied.value);
}

/** The interpreter, on checked input. */
function run(table: NftTable, index: TableIndex, packet: Packet, options: TraceOptions): TraceResult {
  const family = index.family;
  const now = options.now ?? 0;
  const masqueradeMark = options.masqueradeMark ?? 0x4000;
  const source = parseAddress(packet.source, family);
  const destination = parseAddress(packet.destination, family);
  if (source === undefined || destination === undefined) return fail(`the packet's addresses are not IPv${family} addresses`);
  const sourceIP: bigint = source;
  const local = new Set<bigint>();
  for (const text of options.localAddresses) {
    const ip = parseAddress(text, family);
    if (ip !== undefined) local.add(ip); // the other family's addresses are not this table's
  }
  const isLocal = (ip: bigint): boolean => local.has(ip) || (family === 4 ? ip >> 24n === 127n : ip === 1n);
  const l4proto = packet.protocol === 'icmp' ? (family === 4 ? 1 : 58) : packet.protocol === 'tcp' ? 6 : packet.protocol === 'udp' ? 17 : 132;
  const ctState = (options.conntrack ?? 'NEW').toLowerCase();
  const isNew = ctState === 'new';
  const recent = (options.recent ?? []).map((e) => ({ name: e.name, source: parseAddress(e.source, family), lastSeen: e.lastSeen }));

  const outcomes: TraceOutcome[] = [];
  let outcomeCount = 0;
  const push = (t: Thread, step: TraceStep): void => {
    t.trail = { step, previous: t.trail };
  };
  const emit = (t: Thread, kind: TraceOutcome['kind']): void => {
    const outcome: TraceOutcome = {
      kind,
      ...(t.dnat === undefined ? {} : { dnat: t.dnat }),
      delivery: t.delivery ?? (isLocal(t.destination) ? 'local' : 'forward'),
      markedForMasquerade: (t.mark & masqueradeMark) !== 0 || t.masqueraded,
      masqueraded: t.masqueraded,
      affinityUpdates: consToArray(t.affinity),
      chains: consToArray(t.chains),
      matched: consToArray(t.matched),
      probability: { written: t.written, kernel: t.kernel },
      trail: t.trail ?? { step: { kind: 'skip', reason: 'no hook ran' }, previous: undefined },
    };
    outcomeCount++;
    if (options.onOutcome === undefined) outcomes.push(outcome);
    else options.onOutcome(outcome);
  };

  /** The next hook of the packet's path, or undefined when it has left netfilter. */
  const nextHook = (t: Thread): Hook | undefined => {
    const phase = t.phase++;
    if (packet.entry === 'host') {
      if (phase === 0) return 'output';
      if (phase === 1) {
        t.delivery = isLocal(t.destination) ? 'local' : 'forward';
        return 'postrouting';
      }
      if (t.delivery === 'local' && phase === 2) return 'prerouting';
      if (t.delivery === 'local' && phase === 3) return 'input';
      return undefined;
    }
    if (phase === 0) return 'prerouting';
    if (phase === 1) {
      t.delivery = isLocal(t.destination) ? 'local' : 'forward';
      return t.delivery === 'local' ? 'input' : 'forward';
    }
    if (phase === 2 && t.delivery === 'forward') return 'postrouting';
    return undefined;
  };

  const consultsNat = (t: Thread, hook: Hook): boolean =>
    isNew && (hook === 'prerouting' || hook === 'output' ? !t.dstManip : !t.srcManip);

  /** Starts the next base chain of the path; false when the packet has left netfilter. */
  const startBase = (t: Thread): boolean => {
    for (;;) {
      while (t.baseAt < t.baseChains.length) {
        const base = t.baseChains[t.baseAt++];
        if (base === undefined || t.hook === undefined) continue;
        if (base.type === 'nat') {
          if (!consultsNat(t, t.hook)) {
            push(t, { kind: 'skip', reason: `${base.name}: the nat chain is not consulted (${isNew ? 'already bound' : `conntrack ${ctState}`})` });
            continue;
          }
          t.natConsulted = true;
        }
        const chain = table.chains.get(base.name);
        t.base = base;
        t.stack = [{ chain: base.name, rules: chain?.rules ?? [], index: 0 }];
        push(t, { kind: 'hook', hook: base.hook, chain: base.name, priority: base.priority });
        return true;
      }
      // The hook is done: a nat chain consulted here bound this direction.
      if (t.hook !== undefined && t.natConsulted) {
        if (t.hook === 'prerouting' || t.hook === 'output') t.dstManip = true;
        else t.srcManip = true;
      }
      t.natConsulted = false;
      const hook = nextHook(t);
      if (hook === undefined) return false;
      t.hook = hook;
      t.baseChains = index.hooks.get(hook) ?? [];
      t.baseAt = 0;
    }
  };

  const initial: Thread = {
    phase: 0,
    hook: undefined,
    baseChains: [],
    baseAt: 0,
    base: undefined,
    natConsulted: false,
    dstManip: false,
    srcManip: false,
    stack: [],
    destination,
    port: packet.destinationPort,
    mark: (options.mark ?? 0) >>> 0,
    dnat: undefined,
    masqueraded: false,
    accepted: false,
    delivery: undefined,
    written: RATIONAL_ONE,
    kernel: RATIONAL_ONE,
    matched: undefined,
    chains: undefined,
    affinity: undefined,
    trail: undefined,
  };

  const fieldValue = (t: Thread, field: Field): bigint | number | undefined =>
    field === 'saddr' ? sourceIP : field === 'daddr' ? t.destination : field === 'l4proto' ? l4proto : t.port;

  const inAffinity = (t: Thread, set: SetIndex, ip: bigint): boolean => {
    const name = set.set.spec.name;
    const live = (lastSeen: number): boolean => set.timeoutMs === undefined || now < lastSeen + set.timeoutMs;
    for (let l = t.affinity; l !== undefined; l = l.tail) if (l.head.name === name) return true;
    return recent.some((e) => e.name === name && e.source === ip && live(e.lastSeen));
  };

  const matchedRule = (frame: Frame, rule: NftRule): MatchedRule => ({ chain: frame.chain, index: frame.index - 1, text: rule.rule, rule });

  /** Applies a verdict; returns an error message, 'end' when the packet's run ended, or undefined. */
  const applyVerdict = (t: Thread, v: Verdict): string | 'end' | undefined => {
    switch (v.kind) {
      case 'jump':
      case 'goto': {
        const chain = table.chains.get(v.chain);
        if (chain === undefined) return `${v.kind} to ${v.chain}, which the table does not have`;
        if (chain.spec.hook !== undefined) return `${v.kind} to base chain ${v.chain}`;
        if (t.stack.length >= MAX_DEPTH) return `chains nest deeper than ${MAX_DEPTH} (a loop?)`;
        if (v.kind === 'goto') t.stack.pop();
        t.stack.push({ chain: v.chain, rules: chain.rules, index: 0 });
        t.chains = { head: v.chain, tail: t.chains };
        push(t, { kind: 'enter', chain: v.chain, via: v.kind });
        return undefined;
      }
      case 'return':
        returnFrom(t);
        return undefined;
      case 'continue':
        return undefined;
      case 'accept':
        if (t.base?.type === 'filter') t.accepted = true;
        t.stack = [];
        return undefined;
      case 'drop':
      case 'reject':
        emit(t, v.kind);
        return 'end';
    }
  };

  const returnFrom = (t: Thread): void => {
    t.stack.pop();
    const parent = t.stack[t.stack.length - 1];
    if (parent !== undefined) push(t, { kind: 'return', chain: parent.chain });
  };

  const verdictOfValue = (value: readonly string[] | undefined): Verdict | undefined => {
    const [kind, chain, ...more] = (value ?? []).join(' ').split(' ');
    if (more.length > 0) return undefined;
    if ((kind === 'jump' || kind === 'goto') && chain !== undefined) return { kind, chain };
    if (chain !== undefined) return undefined;
    return kind === 'accept' || kind === 'drop' || kind === 'return' || kind === 'continue' ? { kind } : undefined;
  };

  const work: Thread[] = [initial];
  while (work.length > 0) {
    const t = work.pop();
    if (t === undefined) break;
    thread: for (;;) {
      if (t.stack.length === 0) {
        if (!startBase(t)) {
          emit(t, t.dnat !== undefined ? 'dnat' : t.accepted ? 'accept' : 'no-match');
          break;
        }
        continue;
      }
      const frame = t.stack[t.stack.length - 1];
      if (frame === undefined) break;
      if (frame.index >= frame.rules.length) {
        returnFrom(t);
        continue;
      }
      const rule = frame.rules[frame.index];
      frame.index++;
      if (rule === undefined) continue;
      const program = index.program(rule);
      const where = `chain ${frame.chain} rule ${frame.index - 1}`;
      if (typeof program === 'string') return fail(`${where}: ${program}`);

      let verdict: Verdict | undefined;
      let matches = true;
      let terminal: 'dnat' | 'masquerade' | undefined;
      let forked: { modulus: number; entries: ReadonlyMap<number, Verdict> } | undefined;
      for (const s of program) {
        const r = evaluate(t, s);
        if (typeof r === 'string') return fail(`${where}: ${r}`);
        if (r === false) {
          matches = false;
          break;
        }
        if (r === true) continue;
        if ('verdict' in r) verdict = r.verdict;
        else if ('numgen' in r) forked = r.numgen;
        else terminal = r.terminal;
        break;
      }
      if (!matches) continue;
      const matched = matchedRule(frame, rule);
      if (forked !== undefined) {
        // One thread per value drawn; value 0 runs first (the others wait on the work list).
        const { modulus, entries } = forked;
        let ended = false;
        for (let k = modulus - 1; k >= 0; k--) {
          const b = k === 0 ? t : fork(t);
          const branch: Branch = {
            chain: frame.chain,
            index: frame.index - 1,
            value: k,
            modulus,
            written: reduce(1n, BigInt(modulus)),
            kernel: reduce(ceilDiv(BigInt(k + 1) * TWO_32, BigInt(modulus)) - ceilDiv(BigInt(k) * TWO_32, BigInt(modulus)), TWO_32),
          };
          b.written = times(b.written, branch.written);
          b.kernel = times(b.kernel, branch.kernel);
          b.matched = { head: matched, tail: b.matched };
          push(b, { kind: 'branch', branch, rule: matched });
          const v = entries.get(k);
          const applied = v === undefined ? undefined : applyVerdict(b, v);
          if (applied === 'end') {
            if (k === 0) ended = true;
            continue;
          }
          if (applied !== undefined) return fail(`${where}: ${applied}`);
          if (k !== 0) work.push(b);
        }
        if (ended) break thread;
        continue;
      }
      t.matched = { head: matched, tail: t.matched };
      push(t, { kind: 'rule', matched });
      if (terminal !== undefined) {
        // dnat and masquerade accept the packet for this base chain.
        t.stack = [];
        continue;
      }
      if (verdict !== undefined) {
        const applied = applyVerdict(t, verdict);
        if (applied === 'end') break thread;
        if (applied !== undefined) return fail(`${where}: ${applied}`);
      }
    }
  }

  const trace: Trace = { packet, outcomes, outcomeCount };
  return ok(trace);

  /**
   * One statement: true (matched, go on), false (the rule ends here), a verdict or terminal
   * statement (the rule's last), a numgen fork, or an error message.
   */
  function evaluate(
    t: Thread,
    s: Statement,
  ): boolean | string | { verdict: Verdict } | { numgen: { modulus: number; entries: ReadonlyMap<number, Verdict> } } | { terminal: 'dnat' | 'masquerade' } {
    switch (s.kind) {
      case 'compare': {
        const v = fieldValue(t, s.field);
        if (v === undefined) return false;
        return s.any.some((lit) => meets(v, lit)) !== s.negated;
      }
      case 'lookup': {
        const set = index.set(s.set);
        if (typeof set === 'string') return set;
        if (set.set.kind !== 'set') return `@${s.set} is a map; a lookup needs a set`;
        const values = s.fields.map((f) => fieldValue(t, f));
        if (findElement(set, values) !== undefined) return true;
        // An affinity set: the entries the options and this run's updates hold.
        const [only] = values;
        return values.length === 1 && typeof only === 'bigint' && s.fields[0] === 'saddr' && inAffinity(t, set, only);
      }
      case 'vmap':
      case 'inline-vmap': {
        const values = s.fields.map((f) => fieldValue(t, f));
        let verdict: Verdict | undefined;
        if (s.kind === 'vmap') {
          const map = index.set(s.map);
          if (typeof map === 'string') return map;
          if (map.set.kind !== 'map') return `@${s.map} is a set; vmap needs a map`;
          const element = findElement(map, values);
          if (element === undefined) return false;
          verdict = verdictOfValue(element.value);
          if (verdict === undefined) return `@${s.map}: cannot read the verdict ${JSON.stringify((element.value ?? []).join(' '))}`;
        } else {
          verdict = s.entries.find((e) => e.key.length === values.length && e.key.every((lit, i) => meets(values[i], lit)))?.verdict;
          if (verdict === undefined) return false;
        }
        return { verdict };
      }
      case 'fib-local': {
        const ip = s.field === 'saddr' ? sourceIP : t.destination;
        return isLocal(ip) !== s.negated;
      }
      case 'ct-state':
        return s.states.includes(ctState) !== s.negated;
      case 'mark-match':
        return (((t.mark & s.mask) >>> 0) === s.value) !== s.negated;
      case 'mark-set':
        t.mark = (s.op === 'or' ? t.mark | s.value : s.op === 'xor' ? t.mark ^ s.value : s.op === 'and' ? t.mark & s.value : s.value) >>> 0;
        return true;
      case 'numgen':
        return { numgen: { modulus: s.modulus, entries: s.entries } };
      case 'update': {
        const set = index.set(s.set);
        if (typeof set === 'string') return set;
        if (s.fields.length !== 1 || s.fields[0] !== 'saddr') return `update @${s.set}: only { ip saddr } can be traced`;
        t.affinity = { head: { name: s.set, source: packet.source, lastSeen: now }, tail: t.affinity };
        return true;
      }
      case 'dnat': {
        if (t.base?.type !== 'nat' || (t.hook !== 'prerouting' && t.hook !== 'output')) return 'dnat is only valid in a nat chain of the prerouting or output hook';
        const ip = parseAddress(s.address, family);
        if (ip === undefined) return `bad dnat address ${s.address}`;
        t.destination = ip;
        if (s.port !== undefined) t.port = s.port;
        t.dnat = s.port === undefined ? s.address : family === 6 ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
        return { terminal: 'dnat' };
      }
      case 'masquerade':
        if (t.base?.type !== 'nat' || t.hook !== 'postrouting') return 'masquerade is only valid in a nat chain of the postrouting hook';
        t.masqueraded = true;
        return { terminal: 'masquerade' };
      case 'counter':
        return true;
      case 'verdict':
        return { verdict: s.verdict };
    }
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function times(a: Rational, b: Rational): Rational {
  return reduce(a.numerator * b.numerator, a.denominator * b.denominator);
}
