// One run of the nftables proxier's syncProxyRules as a value: the transaction it writes
// from the service ports, their endpoints and what it knows of the table (the chains and
// sets the table holds, and the elements its storages recorded), with what it records for
// the next run.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules, from "Now start the actual
// syncing transaction" to the transaction's Run).

import { compareServices, endpointsMap, servicePortInfos, servicePortKey, type EndpointInfo, type ServicePortInfo } from '@kubesvc/proxy';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import type { NftablesProxierConfig } from '../config.js';
import { CLUSTER_IPS_SET, FIREWALL_IPS_MAP, NO_ENDPOINT_NODEPORTS_MAP, NO_ENDPOINT_SERVICES_MAP, SERVICE_IPS_MAP, SERVICE_NODEPORTS_MAP } from '../names.js';
import { isAffinitySetName, isServiceChainName, serviceChainNames, type NftServiceChainNames } from './chain-names.js';
import type { PersistentMap } from '../model/persistent-map.js';
import { localTexts, writeServicePort, type Claims, type Storages, type SyncAccumulator } from './service-rules.js';
import { setupNftables } from './setup.js';
import { ElementStorage, type TxWriter } from './tx.js';

/** What the proxier's element storages hold (key text to value text), per set or map name. */
export type StorageState = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The six sets and maps whose elements a sync keeps track of, in upstream's order. */
export const STORED: readonly (readonly ['set' | 'map', string, keyof Storages])[] = [
  ['set', CLUSTER_IPS_SET, 'clusterIPs'],
  ['map', SERVICE_IPS_MAP, 'serviceIPs'],
  ['map', FIREWALL_IPS_MAP, 'firewallIPs'],
  ['map', NO_ENDPOINT_SERVICES_MAP, 'noEndpointServices'],
  ['map', NO_ENDPOINT_NODEPORTS_MAP, 'noEndpointNodePorts'],
  ['map', SERVICE_NODEPORTS_MAP, 'serviceNodePorts'],
];

/** The service ports and their endpoints a sync works from (the proxier's svcPortMap and endpointsMap). */
export interface SyncModel {
  readonly ports: readonly ServicePortInfo<NftServiceChainNames>[];
  readonly endpoints: ReadonlyMap<string, readonly EndpointInfo[]>;
}

export function syncModel(services: readonly Service[], endpointSlices: readonly EndpointSlice[], config: NftablesProxierConfig): SyncModel {
  return { ports: orderedServicePorts(services, config.family), endpoints: endpointsMap(endpointSlices, config.family, config.nodeName) };
}

export const NO_ENDPOINTS: readonly EndpointInfo[] = [];

/** The endpoints of a service port (none when it has no slice). */
export function portEndpoints(model: SyncModel, svc: ServicePortInfo): readonly EndpointInfo[] {
  return model.endpoints.get(servicePortKey(svc.namespace, svc.name, svc.portName, svc.protocol)) ?? NO_ENDPOINTS;
}

export interface SyncRulesInput {
  /** What the operations are written to. */
  readonly tx: TxWriter;
  readonly model: SyncModel;
  readonly config: NftablesProxierConfig;
  /** A full sync (setupNFTables, every service's chains rewritten); else a partial one. */
  readonly full: boolean;
  /** The proxier's first sync: the base chains are added and deleted first. */
  readonly firstSync: boolean;
  /** In a partial sync, the services (`namespace/name`) whose service or endpoints changed. */
  readonly changedServices: ReadonlySet<string>;
  /** The chains and sets the table holds before this sync (what `nft list` would show). */
  readonly existingChains: readonly string[];
  readonly existingSets: readonly string[];
  /** What the storages recorded after the last sync (empty for the first). */
  readonly storages: StorageState;
  /**
   * The Services' ports in order, with what each claims noted in its `claims` (instead of
   * model.ports: the same ports, grouped by Service); absent when Services share a key.
   */
  readonly services?: readonly ServiceClaimsInput[];
}

/** One Service's part of a sync: its ports, their endpoints, and where to note what they claim. */
export interface ServiceClaimsInput {
  readonly ports: readonly ServicePortInfo<NftServiceChainNames>[];
  readonly endpoints: readonly (readonly EndpointInfo[])[];
  readonly claims: Claims;
}

export interface SyncRulesOutput {
  /** The service and endpoint chains in use. */
  readonly activeChains: ReadonlySet<string>;
  /** Service chains of the table that are no longer in use: flushed now, to be deleted later. */
  readonly staleChains: readonly string[];
  readonly storages: ReadonlyMap<string, PersistentMap<string, string>>;
  /** Service ports with Local internal / external traffic policy and no local endpoint, of those with endpoints. */
  readonly noLocalEndpoints: { readonly internal: number; readonly external: number };
}

/** The service ports of the proxier's family, in a fixed order: services by namespace and name, ports as listed. */
export function orderedServicePorts(services: readonly Service[], family: 4 | 6): ServicePortInfo<NftServiceChainNames>[] {
  return [...services].sort(compareServices).flatMap((service) => servicePortsOf(service, family));
}

/** One Service's ports of the proxier's family, with their chain names. */
export function servicePortsOf(service: Service, family: 4 | 6): ServicePortInfo<NftServiceChainNames>[] {
  return servicePortInfos(service, family).map((info) => ({ ...info, chains: serviceChainNames(info.namespace, info.name, info.portName, info.protocol) }));
}

export function syncRules(input: SyncRulesInput): SyncRulesOutput {
  const { config, tx } = input;
  const made = (of: 'set' | 'map', name: string): ElementStorage => new ElementStorage(of, name, input.storages.get(name) ?? new Map(), !input.full);
  const storages: Storages = {
    clusterIPs: made('set', CLUSTER_IPS_SET),
    serviceIPs: made('map', SERVICE_IPS_MAP),
    firewallIPs: made('map', FIREWALL_IPS_MAP),
    noEndpointServices: made('map', NO_ENDPOINT_SERVICES_MAP),
    noEndpointNodePorts: made('map', NO_ENDPOINT_NODEPORTS_MAP),
    serviceNodePorts: made('map', SERVICE_NODEPORTS_MAP),
  };
  const acc: SyncAccumulator = {
    tx,
    storages,
    activeChains: new Set(),
    activeAffinitySets: new Set(),
    noLocalEndpoints: { internal: 0, external: 0 },
    record: undefined,
  };

  if (input.full) {
    // setupNFTables' chains are not service chains: they go in a set of their own.
    setupNftables(tx, config, input.firstSync, new Set());
    for (const [, , which] of STORED) storages[which].reset(tx);
  }

  const local = localTexts(config);
  const skipped = (svc: ServicePortInfo): boolean => !input.full && !input.changedServices.has(`${svc.namespace}/${svc.name}`);
  if (input.services === undefined) {
    for (const svc of input.model.ports) writeServicePort(acc, config, local, svc, portEndpoints(input.model, svc), skipped(svc));
  } else {
    STORED.forEach(([, , which], i) => {
      storages[which].claim = (key) => acc.record?.elements.push(i, key);
    });
    for (const service of input.services) {
      acc.record = service.claims;
      service.ports.forEach((svc, i) => writeServicePort(acc, config, local, svc, service.endpoints[i] ?? NO_ENDPOINTS, skipped(svc)));
    }
    acc.record = undefined;
  }

  // Chains no longer in use cannot be deleted yet (a kernel before 6.2 may still see them
  // referenced by a deleted map element for a while): they are flushed now, deleted later.
  const staleChains: string[] = [];
  for (const chain of input.existingChains) {
    if (isServiceChainName(chain) && !acc.activeChains.has(chain)) {
      tx.flushChain(chain);
      staleChains.push(chain);
    }
  }
  // Affinity sets no longer in use can go at once.
  for (const set of input.existingSets) {
    if (isAffinitySetName(set) && !acc.activeAffinitySets.has(set)) tx.deleteSet('set', set);
  }

  const after = new Map<string, PersistentMap<string, string>>();
  for (const [, name, which] of STORED) {
    storages[which].cleanup(tx);
    after.set(name, storages[which].snapshot());
  }
  return { activeChains: acc.activeChains, staleChains, storages: after, noLocalEndpoints: acc.noLocalEndpoints };
}
