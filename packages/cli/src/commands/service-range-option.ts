// `--service-cluster-ip-range`, as kube-apiserver takes it: one CIDR, or two of different
// families separated by a comma, primary first. Read by api-types' parseServiceNetworking, the
// one parser of the flag, with kube-apiserver's messages.
import { parseServiceNetworking, type ServiceNetworking } from '@kubesvc/api-types';
import { usageError } from '../cli-error.js';

/** kubeadm's and kind's default service CIDR. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';

/** The parsed flag, or a usage error with kube-apiserver's message. */
export function serviceNetworkingOf(flag: string): ServiceNetworking {
  const parsed = parseServiceNetworking({ serviceClusterIPRange: flag });
  if (!parsed.ok) throw usageError(parsed.error.message);
  return parsed.value;
}
