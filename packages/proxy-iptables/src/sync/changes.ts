// Change detection, the iptables part: what a Service derives to, reusing the chain names the
// last sync hashed. Which Services changed, and whether their ports and endpoints did, is
// @kubesvc/proxy's change tracker (changes.ts there). upstream: pkg/proxy/iptables/proxier.go
// (the chain names a sync keeps per service port and endpoint).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointsMap, sameEndpoints, sameServicePortInfo, servicePortKey, type EndpointInfo, type L4Protocol } from '@kubesvc/proxy';
import type { ServiceChainBatch, ServiceChainNames } from '../chain-names.js';
import { endpointChainHashes, joinChainHashes, sepNameAt } from '../endpoint-chains.js';
import type { ProxierConfig } from '../proxier-config.js';
import { servicePortInfos } from '../service-ports.js';
import type { Placed, PortEntry, ServiceEntry } from './state.js';

const NO_PORTS: ReadonlyMap<string, PortEntry> = new Map();

export function samePorts(a: readonly PortEntry[], b: readonly PortEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !sameServicePortInfo(x.info, y.info) || !sameEndpoints(x.endpoints, y.endpoints)) return false;
  }
  return true;
}

/** The service ports and endpoints of a Service, reusing the chain names `previous` knows. */
export function deriveService(
  service: Service,
  slices: readonly EndpointSlice[],
  config: ProxierConfig,
  previous: ServiceEntry | undefined,
  batch: ServiceChainBatch,
  placed: Map<readonly EndpointInfo[], Placed> | undefined,
): { ports: PortEntry[]; endpointCount: number } {
  // A first sync has nothing to reuse: no map per Service then.
  let oldPorts: ReadonlyMap<string, PortEntry> = NO_PORTS;
  if (previous !== undefined && previous.ports.length > 0) {
    const byName = new Map<string, PortEntry>();
    for (const port of previous.ports) byName.set(port.info.nameString + port.info.protocol, port);
    oldPorts = byName;
  }
  const chainNames =
    oldPorts.size === 0
      ? batch.defer
      : (spn: string, protocol: L4Protocol): ServiceChainNames => oldPorts.get(spn + protocol)?.info.chains ?? batch.defer(spn, protocol);
  const infos = servicePortInfos(service, config.family, chainNames);
  const epMap = slices.length === 0 ? undefined : endpointsMap(slices, config.family, config.nodeName);
  let endpointCount = 0;
  const ports = infos.map((info): PortEntry => {
    const endpoints = epMap?.get(servicePortKey(info.namespace, info.name, info.portName, info.protocol)) ?? [];
    endpointCount += endpoints.length;
    const old = oldPorts.size === 0 ? undefined : oldPorts.get(info.nameString + info.protocol);
    let sepHashes: string;
    if (old === undefined) {
      let at = -1;
      sepHashes = endpointChainHashes(config.kernel, info, endpoints, placed === undefined ? undefined : (where) => (at = where));
      if (placed !== undefined && at >= 0) placed.set(endpoints, at);
    } else if (sameEndpoints(old.endpoints, endpoints)) {
      sepHashes = old.sepHashes;
    } else {
      const known = new Map<string, string>();
      old.endpoints.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(old.sepHashes, i)));
      const unknown = endpoints.filter((ep) => !known.has(ep.hostPort));
      const hashed = endpointChainHashes(config.kernel, info, unknown);
      unknown.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(hashed, i)));
      sepHashes = joinChainHashes(endpoints.map((ep) => known.get(ep.hostPort) as string));
    }
    return { info, endpoints, sepHashes };
  });
  return { ports, endpointCount };
}

