// RepackSubsets for v1 Endpoints: expand the subsets to (port → address → ready), then pack
// the addresses that share a port set back into one subset. An address listed ready and not
// ready ends up not ready; addresses of a subset without ports are kept under a sentinel port
// and come back in a subset without ports (a headless Service may have none).
// upstream: pkg/api/v1/endpoints/util.go (RepackSubsets, mapAddressesByPort, SortSubsets,
//           LessEndpointAddress)
//
// Upstream sorts the ports of a subset and the subsets by the md5 of their Go value; here
// ports sort by (port, protocol, name, appProtocol) and subsets by their first address and
// ports, an order that does not depend on the input's (docs/deviations.md). The endpoints
// controller and the kubernetes-Endpoints reconcilers both use this one.
import { compareCodePoints } from '../manifest/key-order.js';
import type { EndpointAddress, EndpointPort, EndpointSubset } from '../objects/index.js';

/** LessEndpointAddress as a comparator: IP bytes, then targetRef UID (no targetRef first). */
export function compareEndpointAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const byIP = compareCodePoints(a.ip, b.ip);
  if (byIP !== 0) return byIP;
  if (b.targetRef === undefined) return a.targetRef === undefined ? 0 : 1;
  if (a.targetRef === undefined) return -1;
  return compareCodePoints(a.targetRef.uid ?? '', b.targetRef.uid ?? '');
}

function comparePorts(a: EndpointPort, b: EndpointPort): number {
  return (
    a.port - b.port ||
    compareCodePoints(a.protocol ?? '', b.protocol ?? '') ||
    compareCodePoints(a.name ?? '', b.name ?? '') ||
    compareCodePoints(a.appProtocol ?? '', b.appProtocol ?? '')
  );
}

const NO_PORT = '\u0000no-port';

function addressKey(a: EndpointAddress): string {
  return JSON.stringify([a.ip, a.targetRef?.uid ?? '']);
}

function portKey(p: EndpointPort): string {
  return JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? null]);
}

function subsetSortKey(s: EndpointSubset): string {
  const first = s.addresses?.[0] ?? s.notReadyAddresses?.[0];
  return JSON.stringify([first?.ip ?? '', first?.targetRef?.uid ?? '', (s.ports ?? []).map(portKey)]);
}

export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  const byPort = new Map<string, { readonly port: EndpointPort | undefined; readonly ready: Map<string, boolean> }>();
  const note = (addr: EndpointAddress, port: EndpointPort | undefined, ready: boolean): void => {
    const key = addressKey(addr);
    if (!allAddrs.has(key)) allAddrs.set(key, addr);
    const pk = port === undefined ? NO_PORT : portKey(port);
    let entry = byPort.get(pk);
    if (entry === undefined) {
      entry = { port, ready: new Map() };
      byPort.set(pk, entry);
    }
    // Not ready trumps ready.
    if (entry.ready.get(key) !== false) entry.ready.set(key, ready);
  };
  for (const subset of subsets) {
    const ports: readonly (EndpointPort | undefined)[] = (subset.ports ?? []).length === 0 ? [undefined] : (subset.ports ?? []);
    for (const port of ports) {
      for (const addr of subset.addresses ?? []) note(addr, port, true);
      for (const addr of subset.notReadyAddresses ?? []) note(addr, port, false);
    }
  }

  // Group the ports by the exact (address, ready) set they map to.
  const groups = new Map<string, { readonly ready: Map<string, boolean>; readonly ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const signature = JSON.stringify([...ready.entries()].sort(([a], [b]) => compareCodePoints(a, b)));
    let group = groups.get(signature);
    if (group === undefined) {
      group = { ready, ports: [] };
      groups.set(signature, group);
    }
    if (port !== undefined) group.ports.push(port);
  }

  const out: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const readyAddrs: EndpointAddress[] = [];
    const notReadyAddrs: EndpointAddress[] = [];
    for (const [key, isReady] of ready) {
      const addr = allAddrs.get(key);
      if (addr !== undefined) (isReady ? readyAddrs : notReadyAddrs).push(addr);
    }
    readyAddrs.sort(compareEndpointAddresses);
    notReadyAddrs.sort(compareEndpointAddresses);
    ports.sort(comparePorts);
    // Go leaves an empty list nil, which JSON omits.
    out.push({
      ...(readyAddrs.length > 0 ? { addresses: readyAddrs } : {}),
      ...(notReadyAddrs.length > 0 ? { notReadyAddresses: notReadyAddrs } : {}),
      ...(ports.length > 0 ? { ports } : {}),
    });
  }
  return out.sort((a, b) => compareCodePoints(subsetSortKey(a), subsetSortKey(b)));
}
