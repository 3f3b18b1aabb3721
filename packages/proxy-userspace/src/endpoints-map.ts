// Endpoints object → per port name, the "ip:port" strings of its ready addresses.
// upstream: pkg/proxy/util/endpoints.go (BuildPortsToEndpointsMap, isValidEndpoint)
import { joinHostPort, type Endpoints } from '@kubesvc/api-types';

/**
 * For each port name, the endpoints of every subset that lists that port, in subset, port and
 * address order. Only `addresses` count (never `notReadyAddresses`); an address with an empty IP
 * or a port ≤ 0 is skipped, so a port name appears only with at least one endpoint.
 */
export function buildPortsToEndpointsMap(endpoints: Endpoints): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  for (const subset of endpoints.subsets ?? []) {
    for (const port of subset.ports ?? []) {
      for (const address of subset.addresses ?? []) {
        if (address.ip === '' || port.port <= 0) continue;
        const name = port.name ?? '';
        const list = out.get(name);
        const endpoint = joinHostPort(address.ip, port.port);
        if (list === undefined) out.set(name, [endpoint]);
        else list.push(endpoint);
      }
    }
  }
  return out;
}
