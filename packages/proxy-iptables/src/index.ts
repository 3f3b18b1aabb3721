// Public API of @kubesvc/proxy-iptables.
export type { L4Protocol, Match, Rule, Ruleset, Table, TableName, Target } from './ruleset.js';
export { chainRules, rulesetTable } from './ruleset.js';
export type {
  ErrProxierConfig,
  KubeProxyVersion,
  LocalDetector,
  ProbabilityFormat,
  ProxierConfig,
  ProxierConfigOptions,
} from './proxier-config.js';
export {
  DEFAULT_MASQUERADE_BIT,
  KUBE_PROXY_VERSIONS,
  LARGE_CLUSTER_ENDPOINTS_THRESHOLD,
  goHexMark,
  proxierConfig,
} from './proxier-config.js';
// The fast kernel's type; the kernel itself is `@kubesvc/proxy-iptables/wasm`'s loadKernel().
export type { Constant, RuleKernel, SessionBytes, TextOut } from './rule-kernel.js';
export type { RuleDiagnostic } from './diagnostics.js';
export { KUBE_MARK_DROP } from './generate/rule-builder-v1-8.js';
export type { GenerateOptions, IptablesRules, RuleStats } from './generate/generate-rules.js';
export {
  CT_STATE_INVALID_DROPPED_COUNTER,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  LOCALHOST_NODEPORT_ACCEPTED_COUNTER,
} from './generate/generate-rules.js';
export type { KubeProxyBackend } from './backend.js';
export { generateRules, ruleBuilderFor } from './backend.js';
export { printMatch, printRestoreText, printRule, printTarget } from './generate/print-restore.js';
export type { ErrRestoreText } from './normalize-restore.js';
export { normalizeRestoreText } from './normalize-restore.js';
export type { ServiceChainNames } from './chain-names.js';
export { endpointChainName, isServiceChainName, portProtoHash, serviceChainNames } from './chain-names.js';
export { goFormatFixed, probabilityText } from './probability.js';
// The iptables-save view and the iptables-restore parser (save/).
export type { IptFamily } from './save/address.js';
export type { ErrIptablesRestore, RestoreResult } from './save/errors.js';
export type { NegatableValue, RuleMatch, RuleOption, RuleSpec, RuleTarget } from './save/rule-spec.js';
export type { IptablesRestoreDocument, RestoreStatement, RestoreTableBlock } from './save/parse-restore.js';
export type { KernelChain, KernelRuleset, KernelTable, LoadOptions } from './save/load-restore.js';
export type { SaveBackend } from './save/print-save.js';
export type { SaveViewMemo, SaveViewMemoStats, SaveViewOptions } from './save/save-view.js';
export type { ErrRestoreTokenize, TokenizeResult } from './save/tokenize.js';
export { tokenizeRestoreLine } from './save/tokenize.js';
export { quoteSaveString } from './save/save-quote.js';
export { STATISTIC_SCALE, formatSavedProbability, kernelProbability, savedProbability } from './save/probability.js';
export { parseIptablesRestore } from './save/parse-restore.js';
export { BUILTIN_CHAINS, loadIptablesDocument, loadIptablesRestore } from './save/load-restore.js';
export { printSaveRule } from './save/print-rule.js';
export { printIptablesSave } from './save/print-save.js';
export { createSaveViewMemo, iptablesSaveView, iptablesSaveViewOfRuleset } from './save/save-view.js';
// Sync state and partial sync (sync/), the packet tracer (trace/), the iptables-restore --noflush table model (restore-model/).
export * from './sync/index.js';
export type { SyncIndexes } from './sync/state.js';
export * from './trace/index.js';
export * from './restore-model/index.js';
