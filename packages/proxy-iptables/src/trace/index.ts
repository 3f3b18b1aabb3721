// Public API of the trace part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export type {
  Branch,
  ConntrackState,
  ErrTrace,
  MatchedRule,
  OutcomeKind,
  Packet,
  PacketEntry,
  PacketProtocol,
  PortPacket,
  IcmpPacket,
  RecentEntry,
  Trace,
  TraceOptions,
  TraceOutcome,
  TraceResult,
  TraceStep,
  Trail,
} from './trace-types.js';
export { tracePacket, traceSteps } from './trace-packet.js';
export type { ExplainResult } from './explain.js';
export { explain } from './explain.js';
export type { Rational } from '@kubesvc/proxy';
export { formatRational, parseDecimalRational, rationalToFixed } from '@kubesvc/proxy';
export type { ParseResult } from './ruleset-from-text.js';
export { rulesetFromRestoreText } from './ruleset-from-text.js';
export { builtinRules } from './builtin-jumps.js';
