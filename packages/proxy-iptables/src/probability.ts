// The `--probability` text for 1/n. Modern kube-proxy prints fmt.Sprintf("%0.10f", 1.0/n);
// versions before ~v1.10 printed "%0.5f". upstream: pkg/proxy/iptables/proxier.go
// (computeProbability).
//
// Go's %f rounds the exact binary value half-to-even; Number.prototype.toFixed rounds ties
// up, and 1/2048 is such a tie at 10 places (0.00048828125 → Go "0.0004882812", toFixed
// "0.0004882813"). So the formatting here is exact, with BigInt.

import type { ProbabilityFormat } from './proxier-config.js';

/** Go's strconv.FormatFloat(x, 'f', precision, 64) for a finite x >= 0. */
export function goFormatFixed(x: number, precision: number): string {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`goFormatFixed needs a finite x >= 0, got ${x}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biasedExponent = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  let exponent: number;
  if (biasedExponent === 0) {
    exponent = -1074;
  } else {
    mantissa |= 1n << 52n;
    exponent = biasedExponent - 1075;
  }
  // x = mantissa * 2^exponent; scaled = round_half_even(x * 10^precision).
  let numerator = mantissa * 10n ** BigInt(precision);
  let denominator = 1n;
  if (exponent >= 0) numerator <<= BigInt(exponent);
  else denominator <<= BigInt(-exponent);
  let scaled = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && scaled % 2n === 1n)) scaled += 1n;
  const digits = scaled.toString().padStart(precision + 1, '0');
  if (precision === 0) return digits;
  return `${digits.slice(0, digits.length - precision)}.${digits.slice(digits.length - precision)}`;
}

/** The probability text for an endpoint that should take 1 in n of the remaining traffic. */
export function probabilityText(n: number, format: ProbabilityFormat): string {
  return goFormatFixed(1 / n, format === 'modern' ? 10 : 5);
}
