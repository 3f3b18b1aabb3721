// PortRange as apimachinery parses and prints it: the value of --service-node-port-range.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/net/port_range.go (ParsePortRange,
//           PortRange.Set, String, Contains)
import type { AllocatorError } from '../allocator/errors.js';
import { describeValue } from '../input-shape.js';
import { err, ok, type Result } from '../result.js';

export interface PortRange {
  readonly base: number;
  readonly size: number;
}

/** upstream's default --service-node-port-range. */
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';

export type ErrPortRange = AllocatorError<'ErrPortRange'>;

export type ParsePortRangeResult = Result<PortRange, ErrPortRange>;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go's strconv.NumError, as Atoi returns it. */
type ErrAtoi = AllocatorError<'ErrAtoi'>;

/** Go's strconv.Atoi: an optional sign and decimal digits, within int64; its error text otherwise. */
function atoi(s: string): Result<number, ErrAtoi> {
  const quoted = JSON.stringify(s);
  if (!/^[+-]?[0-9]+$/.test(s)) return err({ _tag: 'ErrAtoi', message: `strconv.Atoi: parsing ${quoted}: invalid syntax` });
  const value = BigInt(s);
  if (value > INT64_MAX || value < INT64_MIN) return err({ _tag: 'ErrAtoi', message: `strconv.Atoi: parsing ${quoted}: value out of range` });
  // Anything past ±2^53 is far outside 0..65535, which is all the callers compare against.
  return ok(Number(value));
}

function fail(message: string): ParsePortRangeResult {
  return err({ _tag: 'ErrPortRange', message });
}

/**
 * upstream ParsePortRange: "min-max" inclusive, a single port (size 1), or "" (size 0), after
 * trimming spaces; upstream's error text for everything else.
 */
export function parsePortRange(input: string): ParsePortRangeResult {
  const given: unknown = input;
  if (typeof given !== 'string') return fail(`unable to parse port range: expected a string such as "30000-32767", got ${describeValue(given)}`);
  const value = input.trim();
  if (value === '') return ok({ base: 0, size: 0 });
  const hyphen = value.indexOf('-');
  if (hyphen < 0) {
    const single = atoi(value);
    if (!single.ok) {
      return fail(`unable to parse port range: ${value}: ${single.error.message}, expected hyphen in port range or a single port number`);
    }
    if (single.value >= 0 && single.value <= 65535) return ok({ base: single.value, size: 1 });
    return fail('the port range should between 0 and 65535');
  }
  const low = atoi(value.slice(0, hyphen));
  const high = low.ok ? atoi(value.slice(hyphen + 1)) : low;
  if (!low.ok) return fail(`unable to parse port range: ${value}: ${low.error.message}`);
  if (!high.ok) return fail(`unable to parse port range: ${value}: ${high.error.message}`);
  if (low.value > 65535 || high.value > 65535) return fail(`the port range cannot be greater than 65535: ${value}`);
  if (high.value < low.value) return fail(`end port cannot be less than start port: ${value}`);
  return ok({ base: low.value, size: 1 + high.value - low.value });
}

/** upstream PortRange.String(): "base-last", or "" for an empty range. */
export function formatPortRange(range: PortRange): string {
  return range.size === 0 ? '' : `${range.base}-${range.base + range.size - 1}`;
}

/** upstream PortRange.Contains. */
export function portRangeContains(range: PortRange, port: number): boolean {
  return port >= range.base && port - range.base < range.size;
}
