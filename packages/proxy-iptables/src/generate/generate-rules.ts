// syncProxyRules as a pure function: Services + EndpointSlices + proxier settings in, the
// iptables-restore input for the filter and nat tables out (a full sync, with no stale
// chains to delete). upstream: pkg/proxy/iptables/proxier.go (syncProxyRules), at the
// v1.30/v1.31 line. The rules themselves come from rule-builder.ts, which sync/ shares.
//
// Ordering: upstream walks its service map in Go's random order. Here service ports are
// taken by namespace, then name (byte order), then their order in spec.ports; everything
// inside one service port is written in upstream's order. See the README, "Ordering".

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { checkUnexamined, compareServices, type EndpointInfo, objectKey, servicePortEndpointBound, servicePortEndpoints, serviceSlices, type SlicesByService, slicesByService } from '@kubesvc/proxy';
import { endpointChain, endpointChains } from '../endpoint-chains.js';
import { chainLine, COMMIT_LINE, isAscii, tableLine } from './print-restore.js';
import { KernelTextSink, RestoreTextSink, RulesetSink } from './sinks.js';
import { DECL_LINE } from '../wasm/kernel-layout.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { RuleKernel } from '../rule-kernel.js';
import { lazyText, startText, type LazyText, type RestoreBuffer } from '../sync/restore-buffer.js';
import { ServiceChainBatch } from '../chain-names.js';
import {
  fixedFilterChains,
  fixedNatChains,
  ruleContext,
  writeHeadRules,
  writeServicePortRules,
  writeTailRules,
  type RuleContext,
  type RuleSink,
} from './rule-builder.js';
import type { Ruleset } from '../ruleset.js';
import { type ServicePortInfo, servicePortInfos } from '../service-ports.js';
import { endpointSliceDiagnostics, serviceDiagnostics, type RuleDiagnostic } from '../diagnostics.js';

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
  NODEPORTS_LAST_RULE_COMMENT,
} from './rule-builder.js';

export interface RuleStats {
  /** Service ports programmed (of the proxier's family). */
  readonly servicePorts: number;
  /** Endpoints of those service ports, all conditions (what the large-cluster test counts). */
  readonly endpoints: number;
  readonly largeClusterMode: boolean;
  readonly filterRules: number;
  readonly natRules: number;
  readonly filterChains: number;
  readonly natChains: number;
}

/** Options of generateRules. */
export interface GenerateOptions {
  /**
   * The buffer to write the restore text's bytes into, kept by the caller from one call to the
   * next as a sync's (SyncOptions.buffer): the result's restoreBytes is then a view of it,
   * written over by the next use of the buffer. Absent: a new buffer of the text's size.
   */
  readonly buffer?: RestoreBuffer;
}

export interface IptablesRules {
  readonly ruleset: Ruleset;
  /**
   * The restore text. Where it was printed as bytes (the kernel's path) it is decoded from
   * restoreBytes when first read: with a buffer of the caller's, read it before the buffer's
   * next use (it then throws).
   */
  readonly restoreText: string;
  /** The restore text's UTF-8 bytes, for `iptables-restore`: a view of GenerateOptions.buffer when one was given. */
  readonly restoreBytes: Uint8Array;
  readonly stats: RuleStats;
  /**
   * What was left out of the rules because the input is malformed (a cluster IP that does not
   * parse, an endpoint address that is no IP, a slice without its service-name label, ...),
   * each with the object, the field, the value and the reason. Empty for well-formed input.
   */
  readonly diagnostics: readonly RuleDiagnostic[];
}

/** Services by namespace, then name; a Service listed twice counts once, the last listing winning, as in an informer's store. */
export function orderedServices(services: readonly Service[]): Service[] {
  const byName = new Map<string, Service>();
  for (const service of services) byName.set(objectKey(service.metadata.namespace, service.metadata.name), service);
  return [...byName.values()].sort(compareServices);
}

/** The service ports of all services for the proxier's family, in our deterministic order (their chain names hashed by `kernel` when there is one). */
export function orderedServicePorts(services: readonly Service[], family: 4 | 6, kernel: RuleKernel | undefined): ServicePortInfo[] {
  const batch = new ServiceChainBatch(kernel);
  const ports = orderedServices(services).flatMap((service) => servicePortInfos(service, family, batch.defer));
  batch.name();
  return ports;
}

/**
 * The rules of kube-proxy's v1.31 line for the Services and EndpointSlices (generateRules
 * when the config's kubeProxyVersion is '1.31', see backend.ts). The restore text is printed straight from the
 * builder (no Rule values); the typed `ruleset` is built on first access, by running the same
 * builder again into a RulesetSink, so a caller that wants only the text (`kubesvc rules`)
 * never pays for half a million Rule objects. Both come from the same builder calls in the same
 * order, so the text is exactly printRestoreText(ruleset) (INV-IPT-DETERMINISTIC).
 */
export function generateRulesV131(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
  options: GenerateOptions = {},
): IptablesRules {
  const anomalies = { found: false };
  const prepared = prepareRules(services, endpointSlices, config, anomalies);
  const filterChains = fixedFilterChains(config);
  const natChains = fixedNatChains();
  // The slices whose endpoints the render reads: the others are checked for what diagnostics report.
  const examined = new Set<EndpointSlice>();
  // The mode is the bound's until the endpoints are read: when duplicates or addresses that do
  // not parse leave the count on the other side of the threshold, the text is printed again.
  let large = prepared.bound > config.largeClusterThreshold;
  let printed = print(prepared, large, filterChains, natChains, options.buffer, examined, anomalies);
  if (printed.endpoints > config.largeClusterThreshold !== large) {
    large = !large;
    printed = print(prepared, large, filterChains, natChains, options.buffer);
  }
  if (!anomalies.found) checkUnexamined(prepared.groups, examined, anomalies);
  const diagnostics = serviceDiagnostics(services);
  if (anomalies.found) diagnostics.push(...endpointSliceDiagnostics(endpointSlices, config.family));
  let ruleset: Ruleset | undefined;
  return {
    get ruleset(): Ruleset {
      ruleset ??= rulesetOf(prepared, large);
      return ruleset;
    },
    get restoreText(): string {
      return printed.text.text();
    },
    get restoreBytes(): Uint8Array {
      return printed.text.bytes();
    },
    stats: {
      servicePorts: prepared.ports.length,
      endpoints: printed.endpoints,
      largeClusterMode: large,
      filterRules: printed.sink.filterRules,
      natRules: printed.sink.natRules,
      filterChains: filterChains.length,
      natChains: natChains.length + printed.sink.natChains,
    },
    diagnostics,
  };
}

function print(
  prepared: PreparedRules,
  large: boolean,
  filterChains: readonly string[],
  natChains: readonly string[],
  buffer: RestoreBuffer | undefined,
  examined?: Set<EndpointSlice>,
  anomalies?: { found: boolean },
): PrintedRules {
  const ctx = ruleContext(prepared.config, large);
  return (
    printWithKernel(prepared, ctx, filterChains, natChains, buffer, examined, anomalies) ??
    printWithStrings(prepared, ctx, filterChains, natChains, buffer, examined, anomalies)
  );
}

interface PrintedRules {
  /** The text, printed as a string or as bytes. */
  readonly text: LazyText;
  /** Endpoints of the service ports (all conditions). */
  readonly endpoints: number;
  readonly sink: { readonly filterRules: number; readonly natRules: number; readonly natChains: number };
}

function printWithStrings(
  prepared: PreparedRules,
  ctx: RuleContext,
  filterChains: readonly string[],
  natChains: readonly string[],
  buffer: RestoreBuffer | undefined,
  examined?: Set<EndpointSlice>,
  anomalies?: { found: boolean },
): PrintedRules {
  const sink = new RestoreTextSink();
  const endpoints = writeAllRules(sink, prepared, ctx, examined, anomalies);
  return { text: lazyText({ text: sink.text(filterChains, natChains), buffer }), endpoints, sink };
}

/**
 * The text printed as bytes: the chain declarations and the nat rules in the kernel's text
 * session (rule-kernel.ts), the filter rules into bytes of their own, all copied into the
 * buffer; the string is decoded from them only when read. For ASCII input, when the config has
 * a kernel. Undefined otherwise.
 */
function printWithKernel(
  prepared: PreparedRules,
  ctx: RuleContext,
  filterChains: readonly string[],
  natChains: readonly string[],
  buffer: RestoreBuffer | undefined,
  examined?: Set<EndpointSlice>,
  anomalies?: { found: boolean },
): PrintedRules | undefined {
  const kernel = prepared.config.kernel;
  if (kernel === undefined || !asciiInput(prepared)) return undefined;
  // Every declaration is `:CHAIN - [0:0]\n` with a chain of at most 25 characters: per service
  // port at most its four chains and one per endpoint.
  kernel.beginText(prepared.mostEndpoints, DECL_LINE * (4 * prepared.ports.length + prepared.bound) + 64);
  const sink = new KernelTextSink(kernel);
  let endpoints: number;
  try {
    endpoints = writeAllRules(sink, prepared, ctx, examined, anomalies);
  } catch (error) {
    kernel.abortText();
    throw error;
  }
  let before = tableLine('filter');
  for (const chain of filterChains) before += chainLine(chain);
  let between = COMMIT_LINE + tableLine('nat');
  for (const chain of natChains) between += chainLine(chain);
  if (sink.filterOut.failed) {
    kernel.abortText();
    return undefined;
  }
  const session = kernel.finishBytes();
  if (session === undefined) return undefined;
  const filter = sink.filterOut.view();
  const out = startText(buffer, before.length + filter.length + between.length + session.decl.length + session.nat.length + COMMIT_LINE.length);
  out.write(before);
  out.writeBytes(filter);
  out.write(between);
  out.writeBytes(session.decl);
  out.writeBytes(session.nat);
  out.write(COMMIT_LINE);
  return { text: lazyText({ out }), endpoints, sink };
}

/** Whether every text the rules can hold is ASCII: the names of the service ports and the config's strings (everything else is printed by the package). */
function asciiInput(prepared: PreparedRules): boolean {
  // The settings, not the kernel the config carries.
  if (!isAscii(JSON.stringify(prepared.config, (key: string, value: unknown) => (key === 'kernel' ? undefined : value)))) return false;
  for (const svc of prepared.ports) if (!isAscii(svc.nameString)) return false;
  return true;
}

/** The Ruleset generateRules' text prints: the same builder calls, collected as Rule values. */
function rulesetOf(prepared: PreparedRules, large: boolean): Ruleset {
  const sink = new RulesetSink();
  const config = prepared.config;
  writeAllRules(sink, prepared, ruleContext(config, large));
  return {
    family: config.family,
    tables: [
      { name: 'filter', chains: fixedFilterChains(config), rules: sink.filterRules, deletedChains: [] },
      { name: 'nat', chains: [...fixedNatChains(), ...sink.natChains], rules: sink.natRules, deletedChains: [] },
    ],
  };
}

/**
 * What the rules of a full sync are written from: the service ports in order and the slices of
 * each Service. A service port's endpoints are read when its rules are written, and dropped
 * after: at 10000×10, holding all 110,000 until the end kept them alive through every scavenge.
 */
interface PreparedRules {
  readonly config: ProxierConfig;
  readonly ports: readonly ServicePortInfo[];
  readonly groups: SlicesByService;
  /** At least the number of endpoints (servicePortEndpointBound, summed). */
  readonly bound: number;
  /** At least the most endpoints of one service port. */
  readonly mostEndpoints: number;
}

function prepareRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
  anomalies?: { found: boolean },
): PreparedRules {
  const ports = orderedServicePorts(services, config.family, config.kernel);
  const groups = slicesByService(endpointSlices, config.family, anomalies);
  let bound = 0;
  let mostEndpoints = 0;
  for (const svc of ports) {
    const count = servicePortEndpointBound(serviceSlices(groups, svc.namespace, svc.name), svc.portName, svc.protocol);
    bound += count;
    if (count > mostEndpoints) mostEndpoints = count;
  }
  return { config, ports, groups, bound, mostEndpoints };
}

/** Every rule of a full sync, in upstream's order, into `sink`; returns the number of endpoints. */
function writeAllRules(
  sink: RuleSink,
  prepared: PreparedRules,
  ctx: RuleContext,
  examined?: Set<EndpointSlice>,
  anomalies?: { found: boolean },
): number {
  const { ports, groups, config } = prepared;
  let endpointCount = 0;
  writeHeadRules(sink, config);
  for (const svc of ports) {
    const group = serviceSlices(groups, svc.namespace, svc.name);
    const endpoints = servicePortEndpoints(group, svc.portName, svc.protocol, config.nodeName, examined, anomalies);
    endpointCount += endpoints.length;
    writeServicePortRules(sink, svc, endpoints, ctx, endpointChainMemo(config.kernel, svc, endpoints));
  }
  writeTailRules(sink, config);
  return endpointCount;
}

/**
 * Names each endpoint's KUBE-SEP- chain once (a SHA-256), all of a service port's together (they
 * are hashed four at a time): the builder asks for the names in the endpoints' order, once for
 * the load-balancing rules and once for the chains, so the next index is tried before a search
 * by identity.
 */
function endpointChainMemo(kernel: RuleKernel | undefined, svc: ServicePortInfo, endpoints: readonly EndpointInfo[]): (ep: EndpointInfo) => string {
  let names: readonly string[] | undefined;
  let next = 0;
  return (ep) => {
    const i = endpoints[next] === ep ? next : endpoints.indexOf(ep);
    if (i < 0) return endpointChain(svc, ep);
    next = i + 1;
    names ??= endpointChains(kernel, svc, endpoints);
    return names[i] as string;
  };
}
