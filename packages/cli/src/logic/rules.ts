// `kubesvc rules`: the proxier settings from the flags, and the text kube-proxy would write
// for a dump (or, with an old dump, what a partial sync writes). Pure.
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import {
  applyRestore,
  emptyTables,
  generateRules,
  iptablesSaveView,
  printTables,
  proxierConfig,
  sync,
  type KubeProxyVersion,
  type ProxierConfig,
  type RuleDiagnostic,
  type SaveBackend,
} from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import { generateNftablesRules, INITIAL_NFTABLES_SYNC_STATE, nftablesProxierConfig, syncNftables, type NftablesProxierConfig } from '@kubesvc/proxy-nftables';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import type { Dump } from '../dump/load-dump.js';

export interface RulesFlags {
  readonly nodeName: string;
  readonly nodeIPs: readonly string[];
  readonly clusterCIDR?: string;
  readonly masqueradeAll: boolean;
  readonly kubeProxyVersion: KubeProxyVersion;
  /** The node's topology labels (`--node`: its zone label); none by default. */
  readonly topologyLabels?: Readonly<Record<string, string>>;
  /** The PreferSameTrafficDistribution gate (`--feature-gates`); off by default. */
  readonly preferSameTrafficDistribution?: boolean;
}

/** The node this offline kube-proxy runs on, unless `--node-name` says otherwise. */
export const DEFAULT_NODE_NAME = 'node-1';

/**
 * kube-proxy's settings for the flags, checked by proxy-iptables (its ErrProxierConfig names
 * each bad field). The family is the cluster CIDR's (IPv4 without one), as a kube-proxy with
 * `--cluster-cidr` of that family runs its one proxier of that family.
 */
export function rulesConfig(flags: RulesFlags): ReturnType<typeof proxierConfig> {
  const family = flags.clusterCIDR?.includes(':') ? 6 : 4;
  return proxierConfig({
    kernel: loadKernel(),
    nodeName: flags.nodeName,
    nodeIPs: [...flags.nodeIPs],
    ...(family === 6 ? { family } : {}),
    localDetector: flags.clusterCIDR === undefined ? { kind: 'none' } : { kind: 'cidr', cidr: flags.clusterCIDR },
    masqueradeAll: flags.masqueradeAll,
    kubeProxyVersion: flags.kubeProxyVersion,
    ...(flags.topologyLabels !== undefined ? { topologyLabels: flags.topologyLabels } : {}),
    ...(flags.preferSameTrafficDistribution !== undefined ? { preferSameTrafficDistribution: flags.preferSameTrafficDistribution } : {}),
  });
}

/** kube-proxy's modes that `rules` and `trace` model. */
export const PROXY_MODES = ['iptables', 'nftables'] as const;
export type RulesProxyMode = (typeof PROXY_MODES)[number];

/**
 * The nftables proxier's settings for the flags, checked by proxy-nftables. `serviceCIDRs`
 * are the ServiceCIDRs the proxier watches (v1.33's cluster-ips-check drops packets to
 * addresses in them that no Service has).
 */
export function nftablesRulesConfig(flags: Omit<RulesFlags, 'kubeProxyVersion'>, serviceCIDRs: readonly string[]): ReturnType<typeof nftablesProxierConfig> {
  const family = flags.clusterCIDR?.includes(':') ? 6 : 4;
  return nftablesProxierConfig({
    nodeName: flags.nodeName,
    nodeIPs: [...flags.nodeIPs],
    ...(family === 6 ? { family } : {}),
    localDetector: flags.clusterCIDR === undefined ? { kind: 'none' } : { kind: 'cidr', cidr: flags.clusterCIDR },
    masqueradeAll: flags.masqueradeAll,
    serviceCIDRs: [...serviceCIDRs],
    ...(flags.topologyLabels !== undefined ? { topologyLabels: flags.topologyLabels } : {}),
    ...(flags.preferSameTrafficDistribution !== undefined ? { preferSameTrafficDistribution: flags.preferSameTrafficDistribution } : {}),
  });
}

/** The ServiceCIDRs of a dump, as kube-proxy's ServiceCIDR handler collects them: every CIDR of every object. */
export function dumpServiceCIDRs(dump: Pick<Dump, 'serviceCIDRs'>): string[] {
  return dump.serviceCIDRs.flatMap((c) => c.spec?.cidrs ?? []);
}

/** The `nft -f` transaction of an nftables proxier's first sync of the dump. */
export function nftablesRulesOf(dump: Dump, config: NftablesProxierConfig): string {
  return generateNftablesRules(dump.services, endpointSlicesForProxy(dump), config).text;
}

/**
 * What an nftables proxier writes when the cluster goes from `before` to `after`: the partial
 * sync's transaction after a first sync of `before`, within a second of it (so stale chains
 * are flushed, not yet deleted).
 */
export function nftablesRulesDiffOf(before: Dump, after: Dump, config: NftablesProxierConfig): Result<string, ErrRulesView> {
  const first = syncNftables(INITIAL_NFTABLES_SYNC_STATE, before.services, endpointSlicesForProxy(before), config, { now: 0 });
  if (!first.ok) return err({ _tag: 'ErrRulesView', message: first.error.message });
  const second = syncNftables(first.value.state, after.services, endpointSlicesForProxy(after), config, { now: 0 });
  if (!second.ok) return err({ _tag: 'ErrRulesView', message: second.error.message });
  return ok(second.value.text);
}

/** A save view that could not be made: the rules did not load (never for generated rules). */
export type ErrRulesView = TaggedError<'ErrRulesView'>;

export interface RulesOutput {
  readonly text: string;
  readonly diagnostics: readonly RuleDiagnostic[];
}

function view(restoreText: string, config: ProxierConfig, backend: SaveBackend | undefined): Result<string, ErrRulesView> {
  if (backend === undefined) return ok(restoreText);
  const saved = iptablesSaveView(restoreText, { family: config.family, backend });
  return saved.ok ? ok(saved.value) : err({ _tag: 'ErrRulesView', message: `line ${saved.error.line}: ${saved.error.message}` });
}

/** The iptables-restore text of a full sync of the dump, or its iptables-save view. */
export function rulesOf(dump: Dump, config: ProxierConfig, backend?: SaveBackend): Result<RulesOutput, ErrRulesView> {
  const { restoreText, diagnostics } = generateRules(dump.services, endpointSlicesForProxy(dump), config);
  const text = view(restoreText, config, backend);
  return text.ok ? ok({ text: text.value, diagnostics }) : text;
}

/**
 * What kube-proxy writes when the cluster goes from `before` to `after`: the text of the
 * partial sync that follows a full sync of `before` (`iptables-restore --noflush` input). With
 * a save view: what `iptables-save` prints once both are applied to empty tables.
 */
export function rulesDiffOf(before: Dump, after: Dump, config: ProxierConfig, backend?: SaveBackend): Result<RulesOutput, ErrRulesView> {
  const first = sync(undefined, before.services, endpointSlicesForProxy(before), config);
  const second = sync(first.state, after.services, endpointSlicesForProxy(after), config);
  const { diagnostics } = generateRules(after.services, endpointSlicesForProxy(after), config);
  if (backend === undefined) return ok({ text: second.restoreText, diagnostics });
  let tables = emptyTables(config.family, { backend });
  for (const text of [first.restoreText, second.restoreText]) {
    const applied = applyRestore(tables, text, { noflush: true });
    if (!applied.ok) return err({ _tag: 'ErrRulesView', message: `line ${applied.error.line}: ${applied.error.message}` });
    tables = applied.value;
  }
  return ok({ text: printTables(tables), diagnostics });
}

/** A diagnostic as a warning line: `Service default/broken spec.clusterIP "10.96.0.999": ...`. */
export function formatRuleDiagnostic(d: RuleDiagnostic): string {
  return `${d.object.kind} ${d.object.namespace}/${d.object.name} ${d.field} ${JSON.stringify(d.value)}: ${d.reason}`;
}

/** One table of an iptables-restore (or iptables-save) text: its chains, its rules in order, the chains it deletes. */
export interface RestoreTable {
  readonly table: string;
  readonly chains: readonly string[];
  readonly rules: readonly { readonly chain: string; readonly rule: string }[];
  readonly deletedChains: readonly string[];
}

/** The tables of an iptables-restore text, for `-o json|yaml`: `*table`, `:CHAIN`, `-A CHAIN ...`, `-X CHAIN`, `COMMIT`. */
export function restoreTables(text: string): RestoreTable[] {
  const tables: { table: string; chains: string[]; rules: { chain: string; rule: string }[]; deletedChains: string[] }[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) tables.push({ table: line.slice(1), chains: [], rules: [], deletedChains: [] });
    const current = tables[tables.length - 1];
    if (current === undefined) continue;
    if (line.startsWith(':')) current.chains.push(line.slice(1).split(' ')[0] ?? '');
    else if (line.startsWith('-A ')) current.rules.push({ chain: line.split(' ')[1] ?? '', rule: line });
    else if (line.startsWith('-X ')) current.deletedChains.push(line.slice(3).trim());
  }
  return tables;
}
