// Test support for INV-IPT-UNIFORM: a one-port ClusterIP service with n endpoints, its exact
// traced distribution, and the analytic error bound.
//
// The bound (proved here, checked by the tests). Rule i of a service chain with n endpoints
// (0-based; m = n − i endpoints remain) matches with p_m, the last rule always. So endpoint i
// gets P_i = p_m · Π_{k=m+1..n} (1 − p_k), with p_1 = 1. Write p_k = (1 + ε_k)/k; then
// 1 − p_k = ((k−1)/k)(1 − ε_k/(k−1)), the (k−1)/k telescope to m/n, and
//     n·P_i = (1 + ε_m) · Π_{k=m+1..n} (1 − ε_k/(k−1)).
// If |p_k − 1/k| ≤ a for 2 ≤ k ≤ n, then |ε_k| ≤ k·a, and since |Π(1+x_j) − 1| ≤ exp(Σ|x_j|) − 1,
//     |n·P_i − 1| ≤ exp(a·(m + Σ_{k=m+1..n} k/(k−1))) − 1 = exp(a·(n + H_{n−1} − H_{m−1})) − 1
//                ≤ exp(a·(n + H_{n−1})) − 1,
// so |P_i − 1/n| ≤ (exp(a·(n + H_{n−1})) − 1)/n. For the written %0.10f text a = 1/(2·10^10)
// (the rounding; reached exactly at k = 2048, a tie that Go rounds to even); for the kernel's
// stored/2^31, a is the worst of |stored_k/2^31 − 1/k| over k, computed exactly below.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { generateRules } from '../backend.js';
import { probabilityText } from '../probability.js';
import { validConfig } from '../proxier-config.fixtures.js';
import type { Ruleset } from '../ruleset.js';
import { kernelProbability } from '../save/probability.js';

export const SERVICE_IP = '172.30.0.10';
export const POD = '10.0.0.2';

/** The i-th endpoint address (0-based), distinct for i < 2^16. */
export function endpointIP(i: number): string {
  return `10.180.${(i >> 8) & 255}.${(i & 255) + 0}`;
}

/**
 * One ClusterIP service `ns/svc:p` (TCP 80 → 8080) with `usable` ready endpoints and
 * `unusable` ones that are neither ready nor serving (they get no rule).
 */
export function serviceWithEndpoints(usable: number, unusable = 0, format: 'modern' | 'old' = 'modern'): { ruleset: Ruleset; endpoints: string[] } {
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: 'svc' },
    spec: { clusterIP: SERVICE_IP, ports: [{ name: 'p', port: 80, protocol: 'TCP' }] },
  };
  const endpoints: EndpointSlice['endpoints'] = [];
  for (let i = 0; i < usable + unusable; i++) {
    endpoints.push({ addresses: [endpointIP(i)], conditions: { ready: i < usable, serving: i < usable, terminating: false } });
  }
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: 'svc-1', labels: { 'kubernetes.io/service-name': 'svc' } },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'p', port: 8080, protocol: 'TCP' }],
  };
  const config = validConfig({ nodeName: 'node-a', nodeIPs: ['192.168.0.2'], probabilityFormat: format });
  const { ruleset } = generateRules([service], [slice], config);
  return { ruleset, endpoints: Array.from({ length: usable }, (_, i) => `${endpointIP(i)}:8080`) };
}

/** k·p_k − 1 as an exact integer over `scale`: the written text (scale 10^10) or the kernel's stored value (scale 2^31). */
export function stepError(k: number, mode: 'written' | 'kernel'): { readonly numerator: number; readonly scale: number } {
  const text = probabilityText(k, 'modern');
  if (mode === 'written') {
    // k · m < 10^14 < 2^53: exact in a double.
    return { numerator: k * Number(text.replace('0.', '')) - 1e10, scale: 1e10 };
  }
  const stored = kernelProbability(text) ?? Number.NaN;
  return { numerator: k * stored - 2 ** 31, scale: 2 ** 31 };
}

/** a = max over 2 ≤ k ≤ n of |p_k − 1/k| = |stepError|/(k·scale), and the k reaching it (exact comparison). */
export function worstStep(n: number, mode: 'written' | 'kernel'): { readonly k: number; readonly numerator: bigint; readonly denominator: bigint } {
  let best = { k: 1, numerator: 0n, denominator: 1n };
  for (let k = 2; k <= n; k++) {
    const e = stepError(k, mode);
    const numerator = BigInt(Math.abs(e.numerator));
    const denominator = BigInt(k) * BigInt(e.scale);
    if (numerator * best.denominator > best.numerator * denominator) best = { k, numerator, denominator };
  }
  return best;
}

/** The proven bound on |P_i − 1/n| (and n times it on |n·P_i − 1|), for a per-step error a. */
export function analyticBound(n: number, a: number): number {
  let harmonic = 0;
  for (let k = 1; k < n; k++) harmonic += 1 / k;
  return Math.expm1(a * (n + harmonic)) / n;
}

/**
 * The distribution in double precision, for every n ≤ N at once, as |n·P_i − 1| built from the
 * exact per-step integers: d ← d + x + d·x keeps the deviation itself (≈ 1e-6), not 1 + it, so
 * the rounding of each step is ≈ 1e-22 and the scan is good to ≈ 1e-18, far below the gaps
 * between the figures it ranks.
 */
export function scanDeviations(N: number, mode: 'written' | 'kernel'): {
  readonly worstAbsolute: { readonly value: number; readonly n: number; readonly i: number };
  readonly runnerUpAbsolute: number;
  readonly worstRelative: { readonly value: number; readonly n: number; readonly i: number };
} {
  const eps = new Float64Array(N + 1);
  for (let k = 2; k <= N; k++) {
    const e = stepError(k, mode);
    eps[k] = e.numerator / e.scale;
  }
  let worst = { value: 0, n: 0, i: 0 };
  let runnerUp = 0;
  let worstRelative = { value: 0, n: 0, i: 0 };
  for (let n = 1; n <= N; n++) {
    let d = 0;
    for (let i = 0; i < n; i++) {
      const m = n - i;
      const first = m === 1 ? 0 : (eps[m] ?? 0);
      const relative = Math.abs(d + first + d * first);
      const absolute = relative / n;
      if (absolute > worst.value) {
        runnerUp = worst.value;
        worst = { value: absolute, n, i };
      } else if (absolute > runnerUp) {
        runnerUp = absolute;
      }
      if (relative > worstRelative.value) worstRelative = { value: relative, n, i };
      if (m >= 2) {
        const x = -(eps[m] ?? 0) / (m - 1);
        d = d + x + d * x;
      }
    }
  }
  return { worstAbsolute: worst, runnerUpAbsolute: runnerUp, worstRelative };
}
