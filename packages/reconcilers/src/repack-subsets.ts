// RepackSubsets: expand the subsets to (port → address → ready), then pack the addresses
// that share a port set back into one subset, addresses sorted by IP (byte order) then
// targetRef UID. An address listed both ready and not ready ends up not ready; an address
// under no port disappears. upstream: pkg/api/v1/endpoints/util.go (RepackSubsets, SortSubsets,
// LessEndpointAddress).
//
// Upstream orders the ports of a subset, and the subsets, by the md5 of their Go
// representation; here both keep their first-seen order (docs/deviations.md). The reconcilers
// only ever repack a single subset, where this decides only the order of several ports.
import { compareCodePoints, type EndpointAddress, type EndpointPort, type EndpointSubset } from '@kubesvc/api-types';

function addressKey(a: EndpointAddress): string {
  return JSON.stringify([a.ip, a.targetRef?.uid ?? '']);
}

function portKey(p: EndpointPort): string {
  return JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? null]);
}

/** upstream: LessEndpointAddress, as a comparator. */
export function compareEndpointAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const byIP = compareCodePoints(a.ip, b.ip);
  if (byIP !== 0) return byIP;
  const ua = a.targetRef?.uid;
  const ub = b.targetRef?.uid;
  if (a.targetRef === undefined) return b.targetRef === undefined ? 0 : -1;
  if (b.targetRef === undefined) return 1;
  return compareCodePoints(ua ?? '', ub ?? '');
}

interface PortEntry {
  readonly port: EndpointPort;
  readonly ready: Map<string, boolean>;
}

export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const allAddrs = new Map<string, EndpointAddress>();
  const byPort = new Map<string, PortEntry>();
  const note = (addr: EndpointAddress, port: EndpointPort, ready: boolean): void => {
    const key = addressKey(addr);
    if (!allAddrs.has(key)) allAddrs.set(key, addr);
    const pk = portKey(port);
    let entry = byPort.get(pk);
    if (entry === undefined) {
      entry = { port, ready: new Map() };
      byPort.set(pk, entry);
    }
    // Not ready trumps ready.
    if (entry.ready.get(key) !== false) entry.ready.set(key, ready);
  };
  for (const subset of subsets) {
    for (const port of subset.ports ?? []) {
      for (const addr of subset.addresses ?? []) note(addr, port, true);
      for (const addr of subset.notReadyAddresses ?? []) note(addr, port, false);
    }
  }

  const groups = new Map<string, { readonly ready: Map<string, boolean>; readonly ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const signature = JSON.stringify([...ready.entries()].sort(([a], [b]) => compareCodePoints(a, b)));
    const group = groups.get(signature);
    if (group === undefined) groups.set(signature, { ready, ports: [port] });
    else group.ports.push(port);
  }

  const out: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const readyAddrs: EndpointAddress[] = [];
    const notReadyAddrs: EndpointAddress[] = [];
    for (const [key, isReady] of ready) {
      const addr = allAddrs.get(key);
      if (addr === undefined) continue;
      (isReady ? readyAddrs : notReadyAddrs).push(addr);
    }
    readyAddrs.sort(compareEndpointAddresses);
    notReadyAddrs.sort(compareEndpointAddresses);
    // Go leaves an empty list nil, which JSON omits.
    out.push({
      ...(readyAddrs.length > 0 ? { addresses: readyAddrs } : {}),
      ...(notReadyAddrs.length > 0 ? { notReadyAddresses: notReadyAddrs } : {}),
      ports,
    });
  }
  return out;
}
