// Service ports as the iptables proxier keeps them: @kubesvc/proxy's ServicePortInfo with the
// port's chain names (KUBE-SVC-, KUBE-SVL-, KUBE-EXT-, KUBE-FW-) attached when it is made, so
// the proxier still makes one object per service port.
// upstream: pkg/proxy/iptables/proxier.go (servicePortInfo, newServiceInfo)

import type { Service } from '@kubesvc/api-types';
import { servicePortInfos as baseServicePortInfos, type L4Protocol, type ServicePortInfo as BaseServicePortInfo } from '@kubesvc/proxy';
import { serviceChainNames, type ServiceChainNames } from './chain-names.js';

/** A service port with its iptables chain names. */
export type ServicePortInfo = BaseServicePortInfo<ServiceChainNames>;

/**
 * The service ports of one Service for a proxier of `family` (@kubesvc/proxy's servicePortInfos)
 * with their chain names. `chainNames` lets a caller that remembers the names (sync/) skip the
 * hashing.
 */
export function servicePortInfos(
  service: Service,
  family: 4 | 6,
  chainNames: (servicePortName: string, protocol: L4Protocol) => ServiceChainNames = serviceChainNames,
): ServicePortInfo[] {
  return baseServicePortInfos(service, family, chainNames);
}
