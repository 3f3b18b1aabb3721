// The lease reconciler: each apiserver keeps a lease `/masterleases/<ip>` alive with a TTL, and
// the kubernetes Endpoints are reset to whatever leases are live. upstream:
// pkg/controlplane/reconcilers/lease.go (v1.21–v1.26).
//
// Upstream stores each lease as an Endpoints object whose only address is the IP, under a key
// with a TTL, and bumps its Generation on every refresh because GuaranteedUpdate skips a write
// that changes nothing, which would leave the TTL unrefreshed. What that buys is modelled
// directly: every refresh moves `expiresAt` to now + TTL, even when nothing else changed.
import { ensureSliceOnly, newServiceEndpoints, observedFor, endpointPortsEqual, withSkipMirror, writeEndpoints } from './endpoints-adapter.js';
import { reconcileInputProblem } from './input-shape.js';
import { repackPortedSubsets } from './endpoints-adapter.js';
import type { ErrNoMasterIPs, Leases, ReconcileRequest, ReconcileResult } from './types.js';
import { compareCodePoints, err, ok, type EndpointPort, type EndpointSubset, type Endpoints } from '@kubesvc/api-types';

/** upstream: lease.go doReconcile, word for word. */
export const NO_MASTER_IPS_MESSAGE =
  'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service';

export function errNoMasterIPs(): ErrNoMasterIPs {
  return { _tag: 'ErrNoMasterIPs', message: NO_MASTER_IPS_MESSAGE };
}

/** upstream: storageLeases.UpdateLease: (re)write our lease, expiring `ttlMs` from now. */
export function updateLease(leases: Leases, ip: string, now: number, ttlMs: number): Leases {
  const next = new Map(leases);
  next.set(ip, { ip, expiresAt: now + ttlMs });
  return next;
}

/** upstream: storageLeases.RemoveLease. */
export function removeLease(leases: Leases, ip: string): Leases {
  if (!leases.has(ip)) return leases;
  const next = new Map(leases);
  next.delete(ip);
  return next;
}

/** Whether the lease for `ip` is in storage at `now` (a TTL key that expired is gone). */
export function hasLiveLease(leases: Leases, ip: string, now: number): boolean {
  const lease = leases.get(ip);
  return lease !== undefined && lease.expiresAt > now;
}

/**
 * upstream: storageLeases.ListLeases: the IPs of the live leases in storage-key order
 * (etcd lists `/masterleases/<ip>` sorted by key bytes), skipping a lease without an IP.
 */
export function listLeases(leases: Leases, now: number): string[] {
  return [...leases.entries()]
    .filter(([, lease]) => lease.expiresAt > now && lease.ip.length > 0)
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([, lease]) => lease.ip);
}

interface FormatCheck {
  readonly formatCorrect: boolean;
  readonly ipsCorrect: boolean;
  readonly portsCorrect: boolean;
}

/** upstream: checkEndpointSubsetFormatWithLease: the addresses must be exactly the lease IPs, as a set. */
function checkFormat(e: Endpoints, expected: readonly string[], ports: readonly EndpointPort[], reconcilePorts: boolean): FormatCheck {
  const subsets = e.subsets ?? [];
  const sub = subsets[0];
  if (subsets.length !== 1 || sub === undefined) return { formatCorrect: false, ipsCorrect: false, portsCorrect: false };
  const portsCorrect = !reconcilePorts || endpointPortsEqual(sub.ports, ports);
  const addresses = sub.addresses ?? [];
  let ipsCorrect = addresses.length === expected.length;
  if (ipsCorrect) {
    const seen = new Map(expected.map((ip) => [ip, false]));
    for (const a of addresses) {
      if (seen.get(a.ip) !== false) {
        ipsCorrect = false;
        break;
      }
      seen.set(a.ip, true);
    }
  }
  return { formatCorrect: true, ipsCorrect, portsCorrect };
}

/**
 * upstream: leaseEndpointReconciler.doReconcile: reset the Endpoints to the live lease IPs
 * (sorted), refusing to write when no lease is live. It does not refresh our own lease:
 * ReconcileEndpoints does that first (see reconcileEndpoints).
 */
export function reconcileLease(req: ReconcileRequest, leases: Leases, now: number): ReconcileResult {
  const wrong = reconcileInputProblem(req, leases, now, true);
  if (wrong !== undefined) return err(wrong);
  const observed = observedFor(req);
  const shouldCreate = observed.endpoints === undefined;
  const masterIPs = listLeases(leases, now);
  // Having just refreshed our own lease, an empty list means storage is wrong, not that no
  // apiserver is left: erasing the endpoints would cut every client off.
  if (masterIPs.length === 0) return err(errNoMasterIPs());

  const { endpoints: e, changed: skipMirrorChanged } = withSkipMirror(observed.endpoints ?? newServiceEndpoints(req.serviceName));
  const { formatCorrect, ipsCorrect, portsCorrect } = checkFormat(e, masterIPs, req.endpointPorts, req.reconcilePorts);
  if (!skipMirrorChanged && formatCorrect && ipsCorrect && portsCorrect) return ok(ensureSliceOnly(e, observed));

  let subsets: EndpointSubset[] = formatCorrect ? [...(e.subsets ?? [])] : [{ addresses: [], ports: [...req.endpointPorts] }];
  if (!formatCorrect || !ipsCorrect) {
    const first = subsets[0] ?? {};
    const repacked = repackPortedSubsets([{ ...first, addresses: masterIPs.map((ip) => ({ ip })) }]);
    // A subset without ports repacks to nothing; upstream would then write an empty Endpoints
    // or index an empty slice. The lease IPs are kept, with the given ports (docs/deviations.md).
    subsets =
      repacked.length > 0
        ? repacked
        : [{ addresses: [...masterIPs].sort(compareCodePoints).map((ip) => ({ ip })), ports: [...req.endpointPorts] }];
  }
  if (!portsCorrect) {
    const [first = {}, ...rest] = subsets;
    subsets = [{ ...first, ports: [...req.endpointPorts] }, ...rest];
  }
  return ok(writeEndpoints(shouldCreate ? 'create' : 'update', { ...e, subsets }, observed));
}
