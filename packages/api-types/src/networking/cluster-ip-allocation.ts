// Which ClusterIP allocator an apiserver runs, as two of kube-apiserver's feature gates decide
// it (Kubernetes v1.33 defaults):
//   - MultiCIDRServiceAllocator (GA in v1.33, on by default and not yet locked; locked on in
//     v1.34): ClusterIPs are IPAddress objects over the ServiceCIDRs. Off, they are bits of the
//     one RangeAllocation per service CIDR (the allocator of v1.26-v1.30).
//   - DisableAllocatorDualWrite (beta in v1.33, off by default): while it is off, the IPAddress
//     allocator also sets the IP's bit in the old RangeAllocation, so that an apiserver still on
//     the bitmap never hands out an IP this one gave an IPAddress (the live migration path).
// upstream: pkg/features/kube_features.go (v1.33), pkg/controlplane/apiserver/options
//           (the allocator choice), pkg/registry/core/rest/storage_core.go (rangeRegistries)

/** The allocator of ClusterIPs: IPAddress objects (MultiCIDRServiceAllocator on) or the bitmap. */
export type ClusterIPAllocator = 'ipaddress' | 'bitmap';

export interface ClusterIPAllocation {
  readonly allocator: ClusterIPAllocator;
  /**
   * The IPAddress allocator mirrors every IP of the flag's CIDRs into the old RangeAllocation
   * (DisableAllocatorDualWrite off). Always false with the bitmap allocator, which has only
   * the bitmap to write.
   */
  readonly dualWrite: boolean;
}

/** v1.33's defaults: MultiCIDRServiceAllocator on, DisableAllocatorDualWrite off. */
export const DEFAULT_CLUSTER_IP_ALLOCATION: ClusterIPAllocation = { allocator: 'ipaddress', dualWrite: true };

/** The bitmap allocator of v1.26-v1.30 (MultiCIDRServiceAllocator off). */
export const BITMAP_CLUSTER_IP_ALLOCATION: ClusterIPAllocation = { allocator: 'bitmap', dualWrite: false };
