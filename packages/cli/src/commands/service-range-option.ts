// `--service-cluster-ip-range`, as kube-apiserver takes it: one CIDR, or two of different
// families separated by a comma, primary first.
import { parseCIDR, type CIDR, type ClusterIPFamilies } from '@kubesvc/api-types';
import { usageError } from '../cli-error.js';

/** kubeadm's and kind's default service CIDR. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';

export function serviceCIDRsOf(flag: string): CIDR[] {
  const parts = flag.split(',').map((p) => p.trim());
  if (parts.length > 2) throw usageError(`--service-cluster-ip-range ${JSON.stringify(flag)}: at most two CIDRs, one per family`);
  return parts.map((part) => {
    const parsed = parseCIDR(part);
    if (!parsed.ok) throw usageError(`--service-cluster-ip-range ${JSON.stringify(flag)}: ${parsed.error.message}`);
    return parsed.value.cidr;
  });
}

export function clusterIPFamiliesOf(flag: string): ClusterIPFamilies {
  const families = serviceCIDRsOf(flag).map((c): 'IPv4' | 'IPv6' => (c.network.family === 4 ? 'IPv4' : 'IPv6'));
  const [primary, secondary] = families;
  if (primary === undefined) throw usageError('--service-cluster-ip-range: no CIDR');
  if (secondary === undefined) return [primary];
  if (secondary === primary) throw usageError(`--service-cluster-ip-range: the two CIDRs must be of different families`);
  return [primary, secondary];
}
