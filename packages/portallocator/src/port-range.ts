// PortRange as apimachinery parses and prints it (the --service-node-port-range flag).
// upstream: staging/src/k8s.io/apimachinery/pkg/util/net/port_range.go
import { err, ok, type AllocatorError, type Result, describeValue } from '@kubesvc/api-types';

export interface PortRange {
  readonly base: number;
  readonly size: number;
}

/** upstream's default --service-node-port-range. */
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';

export type ErrPortRange = AllocatorError<'ErrPortRange'>;

export type ParsePortRangeResult = Result<PortRange, ErrPortRange>;

/**
 * What a port range allows, in the same shape and under the same names as ipallocator's
 * IPRange: offset k is the port `base + k`, for k in [0, max).
 */
export interface PortAllocatorRange {
  readonly portRange: PortRange;
  /** formatPortRange(portRange): the RangeAllocation's `range` and ErrNotInRange's valid ports. */
  readonly rangeSpec: string;
  /** The port of offset 0. */
  readonly base: number;
  /** How many ports can be allocated: offsets [0, max). */
  readonly max: number;
  /** Offsets [0, bandOffset) are the static band: automatic allocation uses them last. */
  readonly bandOffset: number;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go's strconv.Atoi: an optional sign and decimal digits, within int64; its error text otherwise. */
/** Go's strconv.NumError, as Atoi returns it. */
type ErrAtoi = AllocatorError<'ErrAtoi'>;

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

/**
 * upstream calculateRangeOffset (portallocator): min(max(16, size / 32), 128), and 0 when
 * size <= 16. 86 for 30000-32767.
 */
export function calculatePortRangeOffset(range: PortRange): number {
  if (range.size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(range.size / 32)), 128);
}

/** The range an allocator over `portRange` works with (upstream NewPortAllocatorCustom). */
export function portAllocatorRangeOf(portRange: PortRange): PortAllocatorRange {
  return {
    portRange,
    rangeSpec: formatPortRange(portRange),
    base: portRange.base,
    max: portRange.size,
    bandOffset: calculatePortRangeOffset(portRange),
  };
}
