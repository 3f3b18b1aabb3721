// `kubectl get endpoints`: NAME ENDPOINTS AGE, the endpoints as `ip:port`, three at most.
// upstream: pkg/printers/internalversion/printers.go (endpointColumnDefinitions, printEndpoints,
//           formatEndpoints)
import type { Endpoints } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, column, joinHostPort, NAME_COLUMN, type ResourcePrinter } from './printer.js';

const MAX_SHOWN = 3;

/**
 * Ready addresses only, once per port (a subset with no ports lists bare IPs: headless
 * Services may have none). After three, the rest are counted: `a,b,c + 4 more...`.
 * No subsets at all is "<none>"; subsets with no ready address give an empty cell.
 */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    if (ports.length === 0) {
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === MAX_SHOWN) {
          more = true;
          break;
        }
        list.push(address.ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === MAX_SHOWN) {
          more = true;
          break;
        }
        list.push(joinHostPort(address.ip, port.port));
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - MAX_SHOWN} more...` : joined;
}

export const endpointsPrinter: ResourcePrinter<Endpoints> = {
  columns: [NAME_COLUMN, column('Endpoints', 'string', 'The ready addresses and ports of the Endpoints.'), AGE_COLUMN],
  cells: (endpoints, now) => [endpoints.metadata.name ?? '', formatEndpoints(endpoints), translateTimestampSince(endpoints.metadata.creationTimestamp, now)],
};
