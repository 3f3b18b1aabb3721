// The master-count reconciler: every apiserver adds its own IP and, when there are more IPs than
// the configured count, drops the ones just after its own in sorted order (wrapping around).
// With the right count every apiserver agrees on the final list; with a wrong one they undo each
// other forever. upstream: pkg/controlplane/reconcilers/instancecount.go (v1.21–v1.26)
import type { EndpointPort, EndpointSubset, Endpoints } from '@kubesvc/api-types';
import {
  endpointPortsEqual,
  ensureSliceOnly,
  newServiceEndpoints,
  observedFor,
  repackPortedSubsets,
  withSkipMirror,
  writeEndpoints,
} from './endpoints-adapter.js';
import type { ReconcileOutcome, ReconcileRequest } from './types.js';

interface FormatCheck {
  readonly formatCorrect: boolean;
  readonly ipCorrect: boolean;
  readonly portsCorrect: boolean;
}

/** upstream: checkEndpointSubsetFormat. */
function checkFormat(e: Endpoints, ip: string, ports: readonly EndpointPort[], count: number, reconcilePorts: boolean): FormatCheck {
  const subsets = e.subsets ?? [];
  const sub = subsets[0];
  if (subsets.length !== 1 || sub === undefined) return { formatCorrect: false, ipCorrect: false, portsCorrect: false };
  const portsCorrect = !reconcilePorts || endpointPortsEqual(sub.ports, ports);
  const addresses = sub.addresses ?? [];
  const ipCorrect = addresses.some((a) => a.ip === ip) && addresses.length <= count;
  return { formatCorrect: true, ipCorrect, portsCorrect };
}

function singleSubset(ip: string, ports: readonly EndpointPort[]): EndpointSubset[] {
  return [{ addresses: [{ ip }], ports: [...ports] }];
}

/**
 * One ReconcileEndpoints of the master-count reconciler (upstream's body, after the
 * stopReconciling check). `masterCount` is --apiserver-count.
 */
export function reconcileMasterCount(req: ReconcileRequest, masterCount: number): ReconcileOutcome {
  const observed = observedFor(req);
  const { ip, endpointPorts } = req;
  if (observed.endpoints === undefined) {
    const { endpoints } = withSkipMirror(newServiceEndpoints(req.serviceName));
    return writeEndpoints('create', { ...endpoints, subsets: singleSubset(ip, endpointPorts) }, observed);
  }
  const { endpoints: e, changed: skipMirrorChanged } = withSkipMirror(observed.endpoints);
  const { formatCorrect, ipCorrect, portsCorrect } = checkFormat(e, ip, endpointPorts, masterCount, req.reconcilePorts);
  if (!formatCorrect) {
    // Something is egregiously wrong: start over with our own IP.
    return writeEndpoints('update', { ...e, subsets: singleSubset(ip, endpointPorts) }, observed);
  }
  if (!skipMirrorChanged && ipCorrect && portsCorrect) return ensureSliceOnly(e, observed);

  const first = (e.subsets ?? [])[0] ?? {};
  let subset: EndpointSubset = first;
  if (!ipCorrect) {
    // We always add our own IP; the repack sorts and removes the duplicate if it was there.
    const repacked = repackPortedSubsets([{ ...first, addresses: [...(first.addresses ?? []), { ip }] }]);
    const packed = repacked[0];
    if (packed === undefined) {
      // A subset without ports repacks to nothing, and upstream then indexes an empty slice
      // (a panic). Treated as a wrong format instead (docs/deviations.md).
      return writeEndpoints('update', { ...e, subsets: singleSubset(ip, endpointPorts) }, observed);
    }
    const addrs = [...(packed.addresses ?? [])];
    if (addrs.length > masterCount) {
      const own = addrs.findIndex((a) => a.ip === ip);
      if (own >= 0) {
        // upstream keeps the index of our own IP fixed while the list shrinks; after a
        // wrap-around removal of element 0 that index points one past our IP, as upstream's does.
        while (addrs.length > masterCount) addrs.splice((own + 1) % addrs.length, 1);
      }
    }
    subset = { ...packed, ...(packed.addresses === undefined ? {} : { addresses: addrs }) };
  }
  if (!portsCorrect) subset = { ...subset, ports: [...endpointPorts] };
  return writeEndpoints('update', { ...e, subsets: [subset] }, observed);
}

/**
 * upstream: masterCountEndpointReconciler.RemoveEndpoints: drop our IP from the first subset,
 * repack, update. Nothing when the Endpoints is missing or has no subsets. Unlike newer
 * upstream it updates even when our IP was not listed (an unchanged update changes nothing
 * in storage).
 */
export function removeMasterCount(req: Omit<ReconcileRequest, 'reconcilePorts'>): ReconcileOutcome {
  const observed = observedFor(req);
  const e = observed.endpoints;
  const subsets = e?.subsets ?? [];
  const first = subsets[0];
  if (e === undefined || first === undefined) return { action: 'none', writes: [] };
  const kept = (first.addresses ?? []).filter((a) => a.ip !== req.ip);
  const repacked = repackPortedSubsets([{ ...first, addresses: kept }, ...subsets.slice(1)]);
  return writeEndpoints('update', { ...e, subsets: repacked }, observed);
}
