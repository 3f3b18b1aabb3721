// Public API of @kubesvc/proxy-nftables: kube-proxy's nftables mode (v1.33).
// The table's layout: names and base chains.
export type { BaseChain, BaseChainHook, BaseChainType } from './names.js';
export {
  BASE_CHAINS,
  CLUSTER_IPS_CHECK_CHAIN,
  CLUSTER_IPS_SET,
  FIREWALL_CHECK_CHAIN,
  FIREWALL_IPS_MAP,
  KUBE_PROXY_TABLE,
  KUBE_PROXY_TABLE_COMMENT,
  MARK_MASQ_CHAIN,
  MASQUERADING_CHAIN,
  NODEPORT_ENDPOINTS_CHECK_CHAIN,
  NODEPORT_IPS_SET,
  NO_ENDPOINT_NODEPORTS_MAP,
  NO_ENDPOINT_SERVICES_MAP,
  REJECT_CHAIN,
  SERVICE_ENDPOINTS_CHECK_CHAIN,
  SERVICE_IPS_MAP,
  SERVICE_NODEPORTS_MAP,
  SERVICES_CHAIN,
} from './names.js';
// The builder and its text (generate/): added here.
export type { ErrNftablesProxierConfig, NftablesLocalDetector, NftablesProxierConfig, NftablesProxierConfigOptions } from './config.js';
export { NFTABLES_DEFAULT_MASQUERADE_BIT, nftablesProxierConfig } from './config.js';
export type { GenerateNftablesOptions, NftablesNoLocalEndpoints, NftablesRules, NftablesRuleStats } from './generate/generate.js';
export { generateNftablesRules } from './generate/generate.js';
export { NftTextBuffer } from './generate/text-buffer.js';
export type { NftEndpointNames, NftServiceChainNames } from './generate/chain-names.js';
export { endpointNames, isAffinitySetName, isServiceChainName, serviceChainNames } from './generate/chain-names.js';
export type { ErrNftPrint } from './model/print.js';
export { parsePriority, printOperation, printTransaction } from './model/print.js';
export type { ErrNftablesSync, NftablesSync, NftablesSyncOptions, NftablesSyncState } from './generate/sync.js';
export { INITIAL_NFTABLES_SYNC_STATE, STALE_CHAIN_GRACE_MS, syncNftables } from './generate/sync.js';
export type { NftablesSyncIndex } from './generate/sync-index.js';
// The reader of nft rulesets and the packet tracer (read/, trace/): added here.
export type { ErrNftParse, ParseResult } from './read/words.js';
export type { ParseTransactionOptions } from './read/parse-transaction.js';
export { parseTransaction } from './read/parse-transaction.js';
export type { ParseListRulesetOptions } from './read/parse-list-ruleset.js';
export { parseListRuleset } from './read/parse-list-ruleset.js';
export type {
  Branch,
  ConntrackState,
  ErrTrace,
  IcmpPacket,
  MatchedRule,
  OutcomeKind,
  Packet,
  PacketEntry,
  PacketProtocol,
  PortPacket,
  RecentEntry,
  Trace,
  TraceOptions,
  TraceOutcome,
  TraceResult,
  TraceStep,
  Trail,
} from './trace/trace-types.js';
export { traceSteps } from './trace/trace-types.js';
export { tracePacket } from './trace/trace-packet.js';
export type { ExplainResult } from './trace/explain.js';
export { explain } from './trace/explain.js';
// The table and transaction model (model/).
export type {
  NftChain,
  NftChainSpec,
  NftElement,
  NftElementSpec,
  NftFamily,
  NftObject,
  NftOperation,
  NftRule,
  NftRuleSpec,
  NftSet,
  NftSetSpec,
  NftTable,
  NftTableSpec,
  NftTransaction,
  NftVerb,
} from './model/types.js';
export type { ErrNftApply, NftErrno } from './model/apply.js';
export { applyTransaction, describeOperation, elementKey, emptyTable } from './model/apply.js';
export { dumpTransaction } from './model/dump.js';
