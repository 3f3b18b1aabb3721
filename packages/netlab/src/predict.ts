// From a tracer's trace (proxy-iptables' or proxy-nftables') to per-backend shares the
// kernel's counts can be tested against.
import type { Rational } from '@kubesvc/proxy-iptables';
import { rationalToFixed } from '@kubesvc/proxy-iptables';

/** What the shares need of an outcome: both tracers' outcomes have it. */
interface WeightedOutcome {
  readonly probability: { readonly kernel: Rational };
}

/** A probability as a double (17 significant digits are more than a chi-square test needs). */
export function rationalNumber(r: Rational): number {
  return Number(rationalToFixed(r, 17));
}

/** The `ip` of a DNAT destination `ip:port`. */
export function dnatAddress(dnat: string): string {
  const colon = dnat.lastIndexOf(':');
  return colon < 0 ? dnat : dnat.slice(0, colon);
}

/**
 * The share of each outcome, keyed by `name(outcome)` (e.g. the backend pod a DNAT goes to),
 * with the probabilities as the kernel draws them (stored/2^31 per statistic rule; the share of
 * 32-bit numbers numgen maps to a value).
 */
export function predictedShares<O extends WeightedOutcome>(trace: { readonly outcomes: readonly O[] }, name: (outcome: O) => string): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const outcome of trace.outcomes) {
    const key = name(outcome);
    shares[key] = (shares[key] ?? 0) + rationalNumber(outcome.probability.kernel);
  }
  return shares;
}

/** Observed shares, from counts. */
export function observedShares(counts: Readonly<Record<string, number>>): Record<string, number> {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const shares: Record<string, number> = {};
  for (const [k, v] of Object.entries(counts)) shares[k] = total === 0 ? 0 : v / total;
  return shares;
}

/** A table of observed vs predicted shares, one line per category, for people. */
export function sharesTable(counts: Readonly<Record<string, number>>, predicted: Readonly<Record<string, number>>): string {
  const observed = observedShares(counts);
  const keys = [...new Set([...Object.keys(predicted), ...Object.keys(counts)])].sort();
  const lines = keys.map(
    (k) => `  ${k.padEnd(8)} observed ${String(counts[k] ?? 0).padStart(5)} = ${(observed[k] ?? 0).toFixed(4)}   predicted ${(predicted[k] ?? 0).toFixed(4)}`,
  );
  return lines.join('\n');
}
