// `kubectl get endpointslices`: NAME ADDRESSTYPE PORTS ENDPOINTS AGE.
// upstream: pkg/printers/internalversion/printers.go (endpointSliceColumnDefinitions,
//           printEndpointSlice, formatDiscoveryPorts, formatDiscoveryEndpoints, listWithMoreString)
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, column, listWithMore, NAME_COLUMN, type ResourcePrinter } from './printer.js';

const MAX_SHOWN = 3;

/** Port numbers (a port with none shows its name, or `*`), three at most, or "<unset>". */
export function formatDiscoveryPorts(ports: readonly DiscoveryEndpointPort[]): string {
  const list: string[] = [];
  let more = false;
  for (const port of ports) {
    if (list.length < MAX_SHOWN) list.push(port.port !== undefined ? String(port.port) : (port.name ?? '*'));
    else more = true;
  }
  return listWithMore(list, more, ports.length, MAX_SHOWN, '<unset>');
}

/** Every address of every endpoint, ready or not, three at most, or "<unset>". */
export function formatDiscoveryEndpoints(endpoints: readonly DiscoveryEndpoint[]): string {
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const endpoint of endpoints) {
    for (const address of endpoint.addresses) {
      if (list.length < MAX_SHOWN) list.push(address);
      else more = true;
      count++;
    }
  }
  return listWithMore(list, more, count, MAX_SHOWN, '<unset>');
}

export const endpointSlicePrinter: ResourcePrinter<EndpointSlice> = {
  columns: [
    NAME_COLUMN,
    column('AddressType', 'string', 'The kind of address the slice holds: IPv4, IPv6 or FQDN.'),
    column('Ports', 'string', 'The port numbers of the slice.'),
    column('Endpoints', 'string', 'The addresses of the endpoints in the slice.'),
    AGE_COLUMN,
  ],
  cells: (slice, now) => [
    slice.metadata.name ?? '',
    slice.addressType,
    formatDiscoveryPorts(slice.ports ?? []),
    formatDiscoveryEndpoints(slice.endpoints ?? []),
    translateTimestampSince(slice.metadata.creationTimestamp, now),
  ],
};
