// `kubectl get servicecidrs`: NAME CIDRS AGE, the CIDRs joined by commas; and
// `kubectl get ipaddresses`: NAME PARENTREF, the parentRef as `<resource>[.<group>]/[<ns>/]<name>`.
// upstream: pkg/printers/internalversion/printers.go (serviceCIDRColumnDefinitions,
//           printServiceCIDR, ipAddressColumnDefinitions, printIPAddress)
// printIPAddress appends an age cell although its column definitions stop at ParentRef; the
// row here has the same three cells (kubectl prints a cell per column, so AGE is not shown).
import type { IPAddress, ParentReference, ServiceCIDR } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';

export const serviceCIDRPrinter: ResourcePrinter<ServiceCIDR> = {
  columns: [NAME_COLUMN, column('CIDRs', 'string', 'The IP blocks, in CIDR notation, Service cluster IPs are taken from.'), AGE_COLUMN],
  cells: (cidr, now) => [cidr.metadata.name ?? '', (cidr.spec?.cidrs ?? []).join(','), translateTimestampSince(cidr.metadata.creationTimestamp, now)],
};

/**
 * The ParentRef cell: schema.GroupResource's String (`resource.group`, or the resource alone
 * in the core group) lower-cased, then `/<namespace>` when set, then `/<name>`; `<none>`
 * without a parentRef.
 */
export function formatParentRef(ref: ParentReference | null | undefined): string {
  if (ref === null || ref === undefined) return '<none>';
  const group = ref.group ?? '';
  const resource = ref.resource ?? '';
  let out = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
  const namespace = ref.namespace ?? '';
  if (namespace !== '') out += `/${namespace}`;
  return `${out}/${ref.name ?? ''}`;
}

export const ipAddressPrinter: ResourcePrinter<IPAddress> = {
  columns: [NAME_COLUMN, column('ParentRef', 'string', 'The object the IP address is allocated to.')],
  cells: (ip, now) => [ip.metadata.name ?? '', formatParentRef(ip.spec?.parentRef), translateTimestampSince(ip.metadata.creationTimestamp, now)],
};
