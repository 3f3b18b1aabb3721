// The statistic match's probability as the kernel holds it. libxt_statistic reads the text
// as a double, stores lround(p * 2^31) in a u32, and iptables-save prints that integer back
// as %.11f of value / 2^31. The kernel matches when (prandom_u32() & 0x7FFFFFFF) < value,
// so the stored integer, not the text, is the probability that takes effect.
// upstream: iptables extensions/libxt_statistic.c (statistic_parse, statistic_save);
// linux net/netfilter/xt_statistic.c.

import { goFormatFixed } from '../probability.js';

/** 2^31: the fixed-point scale of the statistic match. */
export const STATISTIC_SCALE = 0x8000_0000;

const DECIMAL_FLOAT = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/**
 * The u32 the kernel stores for a `--probability` text, or undefined when libxt_statistic
 * refuses it (not a number, or outside [0, 1]). Hexadecimal floats, `inf` and `nan`, which
 * strtod would read, are refused here.
 */
export function kernelProbability(text: string): number | undefined {
  if (!DECIMAL_FLOAT.test(text)) return undefined;
  const p = Number(text);
  if (!(p >= 0 && p <= 1)) return undefined;
  // p * 2^31 is exact in binary floating point; Math.round is lround for values >= 0
  // (halves away from zero).
  return Math.round(p * STATISTIC_SCALE);
}

/**
 * `%.11f` of fixed / 2^31. The quotient is exact in a double, and glibc's printf, like Go's
 * %f (goFormatFixed), rounds the exact binary value to the nearest, ties to even
 * (JavaScript's toFixed breaks ties upwards, which differs for values such as
 * 2^19 / 2^31 = 0.000244140625).
 */
export function formatSavedProbability(fixed: number): string {
  if (!Number.isInteger(fixed) || fixed < 0 || fixed > STATISTIC_SCALE) {
    throw new RangeError(`statistic probability out of range: ${fixed}`);
  }
  return goFormatFixed(fixed / STATISTIC_SCALE, 11);
}

/** What iptables-save prints for a `--probability` text, or undefined when it is refused. */
export function savedProbability(text: string): string | undefined {
  const fixed = kernelProbability(text);
  return fixed === undefined ? undefined : formatSavedProbability(fixed);
}
