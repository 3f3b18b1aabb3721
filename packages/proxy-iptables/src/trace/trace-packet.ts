// A pure interpreter of a kube-proxy ruleset: it follows one packet through the netfilter
// hooks a node runs it through, evaluating every rule, and returns every possible outcome
// with its probability. Randomness comes only from `-m statistic --mode random`; at each such
// rule the run forks in two (matched with p, not matched with 1 − p), so the outcomes of a
// service chain with n endpoints are n runs whose probabilities multiply along the chain.
//
// Hooks, for a NEW packet (the first of a connection):
// - entering from a pod, another node or outside: nat PREROUTING, then routing (to this host:
//   filter INPUT; else filter FORWARD, nat POSTROUTING);
// - sent by this host: nat OUTPUT, filter OUTPUT, nat POSTROUTING, and filter INPUT when the
//   destination is local (the packet loops back).
// nat is only consulted for NEW packets (conntrack applies a connection's binding to the rest).
// Built-in chains hold kube-proxy's jump rules (builtin-jumps.ts) unless the ruleset has its own.
//
// Kernel facts modelled: matches are checked header first (-s, -d, -p) then in order, and stop
// at the first that fails, so `-m recent --set` records only if what precedes it matched; a
// statistic match is (prandom & 0x7FFFFFFF) < stored, with stored = lround(p·2^31), so it
// matches with probability stored/2^31; DNAT and MASQUERADE end their nat chain traversal;
// ACCEPT ends the hook's chain traversal; conntrack's virtual DNAT state is set after a DNAT;
// `--rcheck --seconds S` matches an entry with lastSeen ≥ now − S s.
// upstream: pkg/proxy/iptables/proxier_test.go (iptablesTracer, tracePacket: the same idea
// without probabilities, state or hooks); linux net/netfilter/xt_statistic.c, xt_recent.c,
// xt_addrtype.c, xt_conntrack.c; iptables extensions/libxt_statistic.c.

import { err, ok, type Err } from '@kubesvc/api-types';
import { printRule } from '../generate/print-restore.js';
import type { Match, Rule, Ruleset, TableName, Target } from '../ruleset.js';
import { rulesetTable } from '../ruleset.js';
import { parseAddress, parseMaskedAddress, prefixMask } from '../save/address.js';
import { parseMarkAndMask } from '../save/match-extensions.js';
import { kernelProbability, STATISTIC_SCALE } from '../save/probability.js';
import { BUILTIN_CHAINS, builtinRules } from './builtin-jumps.js';
import { parseDecimalRational as parseDecimal, type Rational, reduceRational as reduce, scaleWeight, UNIT_WEIGHT as UNIT, type Weight, weightValue, consToArray, type Cons } from '@kubesvc/proxy';
import { rulesetFromRestoreText, savedRuleLine } from './ruleset-from-text.js';
import { checkFamily, checkOptions, checkPacket, checkRuleset } from './trace-input.js';
import type {
  Branch,
  ErrTrace,
  MatchedRule,
  Packet,
  RecentEntry,
  Trace,
  TraceOptions,
  TraceOutcome,
  TraceResult,
  TraceStep,
  Trail,
} from './trace-types.js';

const SCALE = BigInt(STATISTIC_SCALE);
/** Deeper than any kube-proxy chain nesting (6); iptables refuses loops, so this catches them. */
const MAX_DEPTH = 32;

interface ChainIndex {
  readonly rules: ReadonlyMap<string, readonly Rule[]>;
  readonly declared: ReadonlySet<string>;
}

interface RulesetIndex {
  readonly family: 4 | 6;
  readonly filter: ChainIndex;
  readonly nat: ChainIndex;
}

const indexes = new WeakMap<Ruleset, RulesetIndex>();

function chainIndex(ruleset: Ruleset, table: TableName): ChainIndex {
  const t = rulesetTable(ruleset, table);
  const rules = new Map<string, Rule[]>();
  for (const chain of t.chains) rules.set(chain, []);
  const builtins = BUILTIN_CHAINS[table];
  for (const rule of t.rules) {
    if (builtins.includes(rule.chain)) continue;
    let list = rules.get(rule.chain);
    if (list === undefined) {
      list = [];
      rules.set(rule.chain, list);
    }
    list.push(rule);
  }
  for (const [chain, list] of builtinRules(ruleset, table)) rules.set(chain, list.slice());
  return { rules, declared: new Set(t.chains) };
}

/** Built once per ruleset (a ruleset is an immutable value) and kept while the ruleset lives. */
function indexOf(ruleset: Ruleset): RulesetIndex {
  let index = indexes.get(ruleset);
  if (index === undefined) {
    index = { family: ruleset.family, filter: chainIndex(ruleset, 'filter'), nat: chainIndex(ruleset, 'nat') };
    indexes.set(ruleset, index);
  }
  return index;
}

// Conntrack states as bits.
const CT: Readonly<Record<string, number>> = { NEW: 1, ESTABLISHED: 2, RELATED: 4, INVALID: 8, UNTRACKED: 16, SNAT: 32, DNAT: 64 };

type Hook = { readonly table: TableName; readonly chain: string };

interface Frame {
  readonly table: TableName;
  readonly chain: string;
  readonly rules: readonly Rule[];
  index: number;
}

interface Thread {
  phase: number;
  hook: Hook | undefined;
  stack: Frame[];
  destination: bigint;
  destinationText: string;
  port: number;
  mark: number;
  ct: number;
  dnat: string | undefined;
  masqueraded: boolean;
  accepted: boolean;
  delivery: 'local' | 'forward' | undefined;
  written: Weight;
  kernel: Weight;
  matched: Cons<MatchedRule> | undefined;
  chains: Cons<string> | undefined;
  recent: Cons<RecentEntry> | undefined;
  trail: Trail | undefined;
}

function fork(t: Thread): Thread {
  return { ...t, stack: t.stack.map((f) => ({ ...f })) };
}

const fail = (message: string): Err<ErrTrace> => err({ _tag: 'ErrTrace', message });

interface Probability {
  readonly written: Rational;
  readonly stored: number;
}

/**
 * Where a packet goes and with which probability. `ruleset` is a Ruleset or an
 * iptables-restore text; an unknown match or target, a malformed address or a jump to a chain
 * that does not exist is an error value. So is input of the wrong shape (checked once, here:
 * trace-input.ts): an unknown protocol or entry point, a port that is not one, an address
 * that does not parse. The protocol is read case-insensitively (`'TCP'` is `'tcp'`), and the
 * Trace's `packet` carries it in lower case.
 */
export function tracePacket(ruleset: Ruleset | string, packet: Packet, options: TraceOptions): TraceResult {
  const familyOption = checkFamily(options);
  if (!familyOption.ok) return familyOption;
  let rs: Ruleset;
  if (typeof ruleset === 'string') {
    const parsed = rulesetFromRestoreText(ruleset, familyOption.value);
    if (!parsed.ok) return parsed;
    rs = parsed.value;
  } else {
    const checked = checkRuleset(ruleset);
    if (!checked.ok) return checked;
    rs = checked.value;
  }
  const family = rs.family;
  const checkedPacket = checkPacket(packet, family);
  if (!checkedPacket.ok) return checkedPacket;
  const checkedOptions = checkOptions(options);
  if (!checkedOptions.ok) return checkedOptions;
  return run(rs, checkedPacket.value, checkedOptions.value);
}

/** The interpreter, on checked input. */
function run(rs: Ruleset, packet: Packet, options: TraceOptions): TraceResult {
  const index = indexOf(rs);
  const family = index.family;
  const now = options.now ?? 0;
  const masqueradeMark = options.masqueradeMark ?? 0x4000;

  const source = parseAddress(packet.source, family);
  const destination = parseAddress(packet.destination, family);
  if (source === undefined) return fail(`the packet's source ${packet.source} is not an IPv${family} address`);
  if (destination === undefined) return fail(`the packet's destination ${packet.destination} is not an IPv${family} address`);
  const sourceIP: bigint = source;
  const local = new Set<bigint>();
  for (const text of options.localAddresses) {
    const ip = parseAddress(text, family);
    if (ip !== undefined) local.add(ip); // an address of the other family is not local to this proxier
  }
  const isLocal = (ip: bigint): boolean => local.has(ip) || (family === 4 ? ip >> 24n === 127n : ip === 1n);
  const recentEntries: { readonly name: string; readonly source: bigint | undefined; readonly lastSeen: number }[] = (options.recent ?? []).map((e) => ({
    name: e.name,
    source: parseAddress(e.source, family),
    lastSeen: e.lastSeen,
  }));
  const ctName = options.conntrack ?? 'NEW';
  const initialCt = CT[ctName] ?? 0;
  const isNew = ctName === 'NEW';

  // Caches: the same address, mark or probability text recurs across rules and runs.
  const addresses = new Map<string, { readonly value: bigint; readonly mask: bigint } | undefined>();
  const address = (text: string): { readonly value: bigint; readonly mask: bigint } | undefined => {
    if (addresses.has(text)) return addresses.get(text);
    const parsed = parseMaskedAddress(text, family);
    const value = parsed === undefined ? undefined : { value: parsed.value, mask: prefixMask(parsed.prefix, family) };
    addresses.set(text, value);
    return value;
  };
  const probabilities = new Map<string, Probability | undefined>();
  const probability = (text: string): Probability | undefined => {
    if (probabilities.has(text)) return probabilities.get(text);
    const written = parseDecimal(text);
    const stored = kernelProbability(text);
    const value =
      written === undefined || stored === undefined || written.numerator > written.denominator ? undefined : { written, stored };
    probabilities.set(text, value);
    return value;
  };

  const outcomes: TraceOutcome[] = [];
  let outcomeCount = 0;
  const rulesOf = (table: TableName): ChainIndex => (table === 'nat' ? index.nat : index.filter);
  const push = (t: Thread, step: TraceStep): void => {
    t.trail = { step, previous: t.trail };
  };
  const matchedRule = (frame: Frame, rule: Rule): MatchedRule => ({
    table: frame.table,
    chain: frame.chain,
    index: frame.index - 1,
    text: savedRuleLine(rule) ?? printRule(rule),
    rule,
  });

  const emit = (t: Thread, kind: TraceOutcome['kind']): void => {
    const outcome: TraceOutcome = {
      kind,
      ...(t.dnat === undefined ? {} : { dnat: t.dnat }),
      delivery: t.delivery ?? (isLocal(t.destination) ? 'local' : 'forward'),
      markedForMasquerade: (t.mark & masqueradeMark) !== 0 || t.masqueraded,
      masqueraded: t.masqueraded,
      recentUpdates: consToArray(t.recent),
      chains: consToArray(t.chains),
      matched: consToArray(t.matched),
      probability: { written: weightValue(t.written), kernel: weightValue(t.kernel) },
      trail: t.trail ?? { step: { kind: 'skip', reason: 'no hook ran' }, previous: undefined },
    };
    outcomeCount++;
    if (options.onOutcome === undefined) outcomes.push(outcome);
    else options.onOutcome(outcome);
  };

  /** The next hook of the packet's path, or undefined when it has left netfilter. */
  const nextHook = (t: Thread): Hook | undefined => {
    for (;;) {
      const phase = t.phase++;
      if (packet.entry === 'host') {
        if (phase === 0 && isNew) return { table: 'nat', chain: 'OUTPUT' };
        if (phase === 1) return { table: 'filter', chain: 'OUTPUT' };
        if (phase === 2) {
          t.delivery = isLocal(t.destination) ? 'local' : 'forward';
          if (isNew) return { table: 'nat', chain: 'POSTROUTING' };
        }
        if (phase === 3 && t.delivery === 'local') return { table: 'filter', chain: 'INPUT' };
        if (phase >= 3) return undefined;
      } else {
        if (phase === 0 && isNew) return { table: 'nat', chain: 'PREROUTING' };
        if (phase === 1) {
          t.delivery = isLocal(t.destination) ? 'local' : 'forward';
          return { table: 'filter', chain: t.delivery === 'local' ? 'INPUT' : 'FORWARD' };
        }
        if (phase === 2 && t.delivery === 'forward' && isNew) return { table: 'nat', chain: 'POSTROUTING' };
        if (phase >= 2) return undefined;
      }
    }
  };

  const startHook = (t: Thread): boolean => {
    const hook = nextHook(t);
    t.hook = hook;
    if (hook === undefined) return false;
    const rules = rulesOf(hook.table).rules.get(hook.chain) ?? [];
    t.stack = [{ table: hook.table, chain: hook.chain, rules, index: 0 }];
    push(t, { kind: 'hook', table: hook.table, chain: hook.chain });
    return true;
  };

  const endHook = (t: Thread): void => {
    t.stack = [];
  };

  const initial: Thread = {
    phase: 0,
    hook: undefined,
    stack: [],
    destination,
    destinationText: packet.destination,
    // ICMP has no port; no rule of a Ruleset tests one without first matching -p tcp|udp|sctp.
    port: packet.destinationPort ?? -1,
    mark: (options.mark ?? 0) >>> 0,
    ct: initialCt,
    dnat: undefined,
    masqueraded: false,
    accepted: false,
    delivery: undefined,
    written: UNIT,
    kernel: UNIT,
    matched: undefined,
    chains: undefined,
    recent: undefined,
    trail: undefined,
  };
  if (!isNew) push(initial, { kind: 'skip', reason: `conntrack ${ctName}: the nat table is not consulted` });

  const work: Thread[] = [initial];
  while (work.length > 0) {
    const t = work.pop();
    if (t === undefined) break;
    // Run this thread to its end; forks go on the work list and run after it.
    thread: for (;;) {
      if (t.stack.length === 0) {
        if (!startHook(t)) {
          emit(t, t.dnat !== undefined ? 'dnat' : t.accepted ? 'accept' : 'no-match');
          break;
        }
        continue;
      }
      const frame = t.stack[t.stack.length - 1];
      if (frame === undefined) break;
      if (frame.index >= frame.rules.length) {
        t.stack.pop();
        const parent = t.stack[t.stack.length - 1];
        if (parent !== undefined) push(t, { kind: 'return', table: parent.table, chain: parent.chain });
        continue;
      }
      const rule = frame.rules[frame.index];
      frame.index++;
      if (rule === undefined) continue;

      // The matches.
      let matches = true;
      for (const match of rule.matches) {
        const result = evaluate(match, t, frame, rule);
        if (typeof result === 'string') return fail(`${frame.table} ${frame.chain} rule ${frame.index}: ${result}`);
        if (!result) {
          matches = false;
          break;
        }
      }
      if (!matches) continue;
      const matched = matchedRule(frame, rule);
      t.matched = { head: matched, tail: t.matched };
      push(t, { kind: 'rule', matched });

      const target: Target | undefined = rule.target;
      if (target === undefined) continue;
      switch (target.kind) {
        case 'jump': {
          const rules = rulesOf(frame.table);
          const next = rules.declared.has(target.chain) ? rules.rules.get(target.chain) : undefined;
          if (next === undefined) return fail(`${frame.table} ${frame.chain}: jump to ${target.chain}, which the ${frame.table} table does not declare`);
          if (t.stack.length >= MAX_DEPTH) return fail(`${frame.table} ${frame.chain}: jumps nest deeper than ${MAX_DEPTH} (a loop?)`);
          t.stack.push({ table: frame.table, chain: target.chain, rules: next, index: 0 });
          t.chains = { head: target.chain, tail: t.chains };
          push(t, { kind: 'enter', table: frame.table, chain: target.chain });
          continue;
        }
        case 'return': {
          t.stack.pop();
          const parent = t.stack[t.stack.length - 1];
          if (parent !== undefined) push(t, { kind: 'return', table: parent.table, chain: parent.chain });
          continue;
        }
        case 'accept':
          if (frame.table === 'filter') t.accepted = true;
          endHook(t);
          continue;
        case 'drop':
          emit(t, 'drop');
          break thread;
        case 'reject':
          if (frame.table !== 'filter') return fail(`${frame.table} ${frame.chain}: REJECT is only valid in the filter table`);
          emit(t, 'reject');
          break thread;
        case 'dnat': {
          const hook = t.hook?.chain;
          if (frame.table !== 'nat' || (hook !== 'PREROUTING' && hook !== 'OUTPUT')) {
            return fail(`${frame.table} ${frame.chain}: DNAT is only valid in nat PREROUTING and OUTPUT`);
          }
          const to = parseHostPort(target.destination);
          const ip = to === undefined ? undefined : parseAddress(to.host, family);
          if (to === undefined || ip === undefined) return fail(`${frame.chain}: bad DNAT destination ${target.destination}`);
          t.destination = ip;
          t.destinationText = to.host;
          if (to.port !== undefined) t.port = to.port;
          t.dnat = target.destination;
          t.ct |= CT['DNAT'] ?? 0;
          endHook(t);
          continue;
        }
        case 'mark': {
          const parsed = parseMarkAndMask(target.value);
          if (parsed === undefined) return fail(`${frame.chain}: bad mark ${target.value}`);
          t.mark = (target.op === 'or' ? t.mark | parsed.value : t.mark ^ parsed.value) >>> 0;
          continue;
        }
        case 'masquerade':
          if (frame.table !== 'nat' || t.hook?.chain !== 'POSTROUTING') return fail(`${frame.table} ${frame.chain}: MASQUERADE is only valid in nat POSTROUTING`);
          t.masqueraded = true;
          t.ct |= CT['SNAT'] ?? 0;
          endHook(t);
          continue;
        default:
          return fail(`${frame.table} ${frame.chain}: unknown target ${JSON.stringify(target)}`);
      }
    }
  }

  const trace: Trace = { packet, outcomes, outcomeCount };
  return ok(trace);

  /** true / false, or the error message. Forks the thread at a statistic match. */
  function evaluate(match: Match, t: Thread, frame: Frame, rule: Rule): boolean | string {
    switch (match.kind) {
      case 'comment':
      case 'nfacct':
        return true;
      case 'protocol':
        return packet.protocol === match.protocol;
      case 'dport':
        return t.port === match.port;
      case 'source':
      case 'destination': {
        const a = address(match.address);
        if (a === undefined) return `bad address ${match.address}`;
        const ip = match.kind === 'source' ? sourceIP : t.destination;
        return ((ip & a.mask) === a.value) !== match.negated;
      }
      case 'addrtype':
        if (match.addressType !== 'LOCAL') return `addrtype ${String(match.addressType)} cannot be traced`;
        return isLocal(match.direction === 'src' ? sourceIP : t.destination);
      case 'mark': {
        const parsed = parseMarkAndMask(`${match.value}/${match.mask}`);
        if (parsed === undefined) return `bad mark ${match.value}/${match.mask}`;
        return (((t.mark & parsed.mask) >>> 0) === parsed.value) !== match.negated;
      }
      case 'conntrack': {
        let bits = 0;
        for (const state of match.states) {
          const bit = CT[state];
          if (bit === undefined) return `unknown conntrack state ${state}`;
          bits |= bit;
        }
        return ((t.ct & bits) !== 0) !== match.negated;
      }
      case 'recent-check': {
        const since = now - match.seconds * 1000;
        for (let l = t.recent; l !== undefined; l = l.tail) {
          if (l.head.name === match.name && l.head.lastSeen >= since) return true;
        }
        return recentEntries.some((e) => e.name === match.name && e.source === sourceIP && e.lastSeen >= since);
      }
      case 'recent-set':
        t.recent = { head: { name: match.name, source: packet.source, lastSeen: now }, tail: t.recent };
        return true;
      case 'statistic': {
        const p = probability(match.probability);
        if (p === undefined) return `bad --probability ${match.probability}`;
        const takenNever = p.written.numerator === 0n && p.stored === 0;
        const takenAlways = p.written.numerator === p.written.denominator && p.stored === STATISTIC_SCALE;
        if (takenNever || takenAlways) return takenAlways;
        const stored = BigInt(p.stored);
        const branch = (taken: boolean): Branch => ({
          table: frame.table,
          chain: frame.chain,
          index: frame.index - 1,
          probability: match.probability,
          stored: p.stored,
          taken,
          written: taken ? p.written : reduce(p.written.denominator - p.written.numerator, p.written.denominator),
          kernel: taken ? reduce(stored, SCALE) : reduce(SCALE - stored, SCALE),
        });
        const taken = branch(true);
        const notTaken = branch(false);
        const rest = fork(t);
        rest.written = scaleWeight(rest.written, notTaken.written);
        rest.kernel = scaleWeight(rest.kernel, notTaken.kernel);
        const ruleInfo = matchedRule(frame, rule);
        push(rest, { kind: 'branch', branch: notTaken, rule: ruleInfo });
        work.push(rest);
        t.written = scaleWeight(t.written, taken.written);
        t.kernel = scaleWeight(t.kernel, taken.kernel);
        push(t, { kind: 'branch', branch: taken, rule: ruleInfo });
        return true;
      }
      default:
        return `unknown match ${JSON.stringify(match)}`;
    }
  }
}

/** `ip:port`, `[ip6]:port`, or a bare address. */
function parseHostPort(text: string): { readonly host: string; readonly port?: number } | undefined {
  const bracket = /^\[([^\]]+)\](?::([0-9]{1,5}))?$/.exec(text);
  if (bracket !== null) {
    const host = bracket[1] ?? '';
    return bracket[2] === undefined ? { host } : { host, port: Number(bracket[2]) };
  }
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port = ''] = text.split(':');
    if (!/^[0-9]{1,5}$/.test(port)) return undefined;
    return { host, port: Number(port) };
  }
  return { host: text };
}

/** The steps of an outcome's trail, oldest first. */
export function traceSteps(outcome: TraceOutcome): TraceStep[] {
  const out: TraceStep[] = [];
  for (let t: Trail | undefined = outcome.trail; t !== undefined; t = t.previous) out.push(t.step);
  return out.reverse();
}
