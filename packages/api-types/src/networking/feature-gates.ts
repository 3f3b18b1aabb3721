// kube-apiserver's --feature-gates and --emulated-version, read as kube-apiserver v1.33 reads
// them, for the two gates that choose the ClusterIP allocator (MultiCIDRServiceAllocator,
// DisableAllocatorDualWrite), PreferSameTrafficDistribution (the Service validation and the
// EndpointSlice controller's hints) and the two generic ones over them (AllAlpha, AllBeta). The
// result is the gates' values at the emulated version and the ClusterIPAllocation they give.
//
// upstream (read at a stored version newer than v1.33; the texts used here are the same in
// v1.33, and the later additions, the dependency check and --min-compatibility-version, are
// left out):
//   staging/src/k8s.io/component-base/compatibility/registry.go  Set (the emulated version
//     first, then the feature gates of each component), toVersionMap, Validate
//   staging/src/k8s.io/component-base/compatibility/version.go  effectiveVersion.Validate
//   pkg/util/compatibility/version.go  the kube floor: binary - 3, never below 1.31
//   staging/src/k8s.io/component-base/cli/flag/colon_separated_multimap_string_string.go
//     (the `component:` prefix of --feature-gates)
//   staging/src/k8s.io/component-base/featuregate/feature_gate.go  Set, unsafeSetFromMap,
//     featureSpecAtEmulationVersion, setUnsetAlphaGates, setUnsetBetaGates
//   staging/src/k8s.io/apimachinery/pkg/util/version/version.go  Parse
//   staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go  the aggregate's text
//   pkg/features/kube_features.go (v1.33)  the modelled gates' versioned specs
//
// Go walks maps in random order, so where upstream checks the entries of a map (the components
// of --feature-gates, the gates of one component) the order of its errors is random; here the
// components are checked before any gate, and the gates in the order the flag first names them.
import type { TaggedError } from '../result.js';
import { err, ok, type Result } from '../result.js';
import { goQuote } from '../validation/field-errors.js';
import type { ClusterIPAllocation } from './cluster-ip-allocation.js';
import { BITMAP_CLUSTER_IP_ALLOCATION } from './cluster-ip-allocation.js';

/** The release kubesvc follows, as kube-apiserver's binary version (its `WithPatch(0)` form). */
const KUBE_BINARY_VERSION = '1.33.0';
/** The lowest --emulated-version a v1.33 kube-apiserver takes: binary - 3 is 1.30, raised to 1.31, the first release with emulation. */
export const MIN_KUBE_EMULATION_VERSION = '1.31';
/** --emulated-version's default: the binary's own major.minor. */
export const DEFAULT_KUBE_EMULATION_VERSION = '1.33';

/** The two gates that choose the ClusterIP allocator. */
export type ClusterIPFeatureGate = 'MultiCIDRServiceAllocator' | 'DisableAllocatorDualWrite';

/** The gates kubesvc models by name: the ClusterIP allocator's, and PreferSameTrafficDistribution. */
export type ModelledFeatureGate = ClusterIPFeatureGate | 'PreferSameTrafficDistribution';

/** The flags as given on a command line; absent or '' means unset. */
export interface FeatureGateFlags {
  /** --feature-gates, e.g. `MultiCIDRServiceAllocator=false` or `kube:DisableAllocatorDualWrite=true`. */
  readonly featureGates?: string;
  /** --emulated-version, e.g. `1.32` or `kube=1.32`. */
  readonly emulatedVersion?: string;
}

/** The gates as the flags set them, at the emulated version, and the allocator they choose. */
export interface ClusterIPFeatureGates {
  /** The emulated version, major.minor. */
  readonly emulatedVersion: string;
  /** Each modelled gate's value at the emulated version: its default there, unless the flag set it. */
  readonly enabled: Readonly<Record<ModelledFeatureGate, boolean>>;
  /** The allocator the gates choose. */
  readonly allocation: ClusterIPAllocation;
  /** What kube-apiserver logs as warnings while it sets the gates (a GA gate set by hand). */
  readonly warnings: readonly string[];
}

/**
 * A flag refused: `message` is kube-apiserver's text (its aggregate when several gates are
 * refused at once, `[a, b]`), `causes` the single messages, `flag` which flag.
 */
export interface ErrFeatureGates extends TaggedError<'ErrFeatureGates'> {
  /** The flag refused. */
  readonly flag: '--feature-gates' | '--emulated-version';
  /** Each refusal's message, in the order they were found. */
  readonly causes: readonly string[];
}

/** parseClusterIPFeatureGates' result. */
export type ClusterIPFeatureGatesResult = Result<ClusterIPFeatureGates, ErrFeatureGates>;

type PreRelease = 'ALPHA' | 'BETA' | '' | 'PRE-ALPHA';

interface FeatureSpec {
  readonly version: readonly [bigint, bigint];
  readonly default: boolean;
  readonly preRelease: PreRelease;
  readonly lockToDefault?: boolean;
}

// featuregate.defaultFeatures and pkg/features/kube_features.go at v1.33. Later releases add
// MultiCIDRServiceAllocator 1.34 GA locked on and DisableAllocatorDualWrite 1.34 GA on, 1.35
// locked; a v1.33 binary does not know them, and --emulated-version cannot pass 1.33.
const KNOWN: ReadonlyMap<string, readonly FeatureSpec[]> = new Map<string, readonly FeatureSpec[]>([
  ['AllAlpha', [{ version: [0n, 0n], default: false, preRelease: 'ALPHA' }]],
  ['AllBeta', [{ version: [0n, 0n], default: false, preRelease: 'BETA' }]],
  [
    'MultiCIDRServiceAllocator',
    [
      { version: [1n, 27n], default: false, preRelease: 'ALPHA' },
      { version: [1n, 31n], default: false, preRelease: 'BETA' },
      { version: [1n, 33n], default: true, preRelease: '', lockToDefault: false },
    ],
  ],
  [
    'DisableAllocatorDualWrite',
    [
      { version: [1n, 31n], default: false, preRelease: 'ALPHA' },
      { version: [1n, 33n], default: false, preRelease: 'BETA' },
    ],
  ],
  // PreferSameZone and PreferSameNode in spec.trafficDistribution (KEP-3015); unknown before 1.33.
  ['PreferSameTrafficDistribution', [{ version: [1n, 33n], default: false, preRelease: 'ALPHA' }]],
]);

const SPECIAL: ReadonlyMap<string, PreRelease> = new Map([
  ['AllAlpha', 'ALPHA'],
  ['AllBeta', 'BETA'],
]);

/** What kubesvc adds to upstream's `unrecognized feature gate: X`: a real kube-apiserver knows many more gates. */
export const UNMODELLED_GATE_NOTE =
  'kubesvc models only MultiCIDRServiceAllocator and DisableAllocatorDualWrite (which choose the ClusterIP allocator), PreferSameTrafficDistribution (trafficDistribution PreferSameZone and PreferSameNode), and AllAlpha and AllBeta over them';

// --- apimachinery's version.Parse ---------------------------------------------------------

interface GoVersion {
  readonly components: readonly bigint[];
  readonly preRelease: string;
  readonly buildMetadata: string;
}

/** Version.String(): the components, then `-pre-release` and `+metadata` when a semantic version has them. */
function formatGoVersion(v: GoVersion): string {
  return `${v.components.join('.')}${v.preRelease === '' ? '' : `-${v.preRelease}`}${v.buildMetadata === '' ? '' : `+${v.buildMetadata}`}`;
}

// Go's regexp: `\s` is [\t\n\f\r ], `.` is anything but \n.
const VERSION_MATCH = /^[\t\n\f\r ]*v?([0-9]+(?:\.[0-9]+)*)([^\n]*)$/;
const EXTRA_MATCH = /^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?[\t\n\f\r ]*$/;
const UINT64_MAX = (1n << 64n) - 1n;

function parseVersionAs(text: string, semver: boolean): Result<GoVersion, TaggedError<'ErrVersion'>> {
  const fail = (message: string) => err({ _tag: 'ErrVersion' as const, message });
  const parts = VERSION_MATCH.exec(text);
  if (parts === null) return fail(`could not parse ${goQuote(text)} as version`);
  const numbers = parts[1] ?? '';
  const extra = parts[2] ?? '';
  const pieces = numbers.split('.');
  if ((semver && pieces.length !== 3) || (!semver && pieces.length < 2)) return fail(`illegal version string ${goQuote(text)}`);
  const components: bigint[] = [];
  for (const [i, piece] of pieces.entries()) {
    if ((i === 0 || semver) && piece.startsWith('0') && piece !== '0') return fail(`illegal zero-prefixed version component ${goQuote(piece)} in ${goQuote(text)}`);
    const n = BigInt(piece);
    if (n > UINT64_MAX) {
      return fail(`illegal non-numeric version component ${goQuote(piece)} in ${goQuote(text)}: strconv.ParseUint: parsing ${goQuote(piece)}: value out of range`);
    }
    components.push(n);
  }
  if (!semver || extra === '') return ok({ components, preRelease: '', buildMetadata: '' });
  const extraParts = EXTRA_MATCH.exec(extra);
  if (extraParts === null) return fail(`could not parse pre-release/metadata (${extra}) in version ${goQuote(text)}`);
  const preRelease = extraParts[1] ?? '';
  for (const piece of preRelease.split('.')) {
    if (/^[0-9]+$/.test(piece) && BigInt(piece) <= UINT64_MAX && piece.startsWith('0') && piece !== '0') {
      return fail(`illegal zero-prefixed version component ${goQuote(piece)} in ${goQuote(text)}`);
    }
  }
  return ok({ components, preRelease, buildMetadata: extraParts[2] ?? '' });
}

/** version.Parse: semantic first, then generic, whose error is the one returned. */
function parseGoVersion(text: string): Result<GoVersion, TaggedError<'ErrVersion'>> {
  const semantic = parseVersionAs(text, true);
  return semantic.ok ? semantic : parseVersionAs(text, false);
}

function majorMinor(v: GoVersion): readonly [bigint, bigint] {
  return [v.components[0] ?? 0n, v.components[1] ?? 0n];
}

function compareMajorMinor(a: readonly [bigint, bigint], b: readonly [bigint, bigint]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

const formatMajorMinor = (v: readonly [bigint, bigint]): string => `${v[0]}.${v[1]}`;

// The three versions above as major.minor pairs.
const BINARY: readonly [bigint, bigint] = [1n, 33n];
const FLOOR: readonly [bigint, bigint] = [1n, 31n];

// --- the flags ------------------------------------------------------------------------------

const aggregate = (messages: readonly string[]): string => (messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`);

function refuse(flag: ErrFeatureGates['flag'], causes: readonly string[]): Result<never, ErrFeatureGates> {
  return err({ _tag: 'ErrFeatureGates', flag, message: aggregate(causes), causes });
}

/** registry.go toVersionMap, then Set's check of the components: the kube emulation version. */
function emulationVersion(text: string): Result<readonly [bigint, bigint], ErrFeatureGates> {
  const fail = (message: string) => refuse('--emulated-version', [message]);
  const byComponent = new Map<string, GoVersion>();
  // pflag's StringSlice reads '' as no entries.
  for (const entry of text === '' ? [] : text.split(',')) {
    let component = 'kube';
    let value = entry;
    if (entry.includes('=')) {
      const at = entry.indexOf('=');
      component = entry.slice(0, at).trim();
      value = entry.slice(at + 1).trim();
    }
    const parsed = parseGoVersion(value);
    if (!parsed.ok) return fail(parsed.error.message);
    const version = parsed.value;
    const shown = formatGoVersion(version);
    if ((version.components[2] ?? 0n) !== 0n) return fail(`patch version not allowed, got: ${component}=${shown}`);
    const existing = byComponent.get(component);
    if (existing !== undefined) return fail(`duplicate version flag, ${component}=${formatGoVersion(existing)} and ${component}=${shown}`);
    byComponent.set(component, version);
  }
  for (const component of byComponent.keys()) if (component !== 'kube') return fail(`component not registered: ${component}`);
  const kube = byComponent.get('kube');
  return ok(kube === undefined ? BINARY : majorMinor(kube));
}

function specAt(specs: readonly FeatureSpec[], emulated: readonly [bigint, bigint]): FeatureSpec {
  for (let i = specs.length - 1; i >= 0; i--) {
    const spec = specs[i];
    if (spec !== undefined && compareMajorMinor(spec.version, emulated) <= 0) return spec;
  }
  return { version: [0n, 0n], default: false, preRelease: 'PRE-ALPHA' };
}

/** strconv.ParseBool. */
function goBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** A malformed pair of a --feature-gates value. */
export type ErrFeatureGatePair = TaggedError<'ErrFeatureGatePair'>;

/**
 * The key=value pairs of a --feature-gates value, in the order first named (a later value of a
 * key wins), or upstream's message for the first malformed pair (featureGate.Set: a pair with
 * no `=`, a value strconv.ParseBool refuses). Every component's gate flag reads its pairs so.
 */
export function readFeatureGatePairs(text: string): Result<ReadonlyMap<string, boolean>, ErrFeatureGatePair> {
  const given = new Map<string, boolean>();
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    if (at < 0) return err({ _tag: 'ErrFeatureGatePair', message: `missing bool value for ${key}` });
    const value = pair.slice(at + 1).trim();
    const bool = goBool(value);
    if (bool === undefined) return err({ _tag: 'ErrFeatureGatePair', message: `invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax` });
    given.set(key, bool);
  }
  return ok(given);
}

/**
 * featureGate.Set and unsafeSetFromMap for the kube component: the explicit values, or the
 * errors upstream returns (an unknown gate ends the walk at once, as upstream's early return).
 */
function setGates(
  text: string,
  emulated: readonly [bigint, bigint],
  warnings: string[],
): Result<ReadonlyMap<string, boolean>, ErrFeatureGates> {
  const pairs = readFeatureGatePairs(text);
  if (!pairs.ok) return refuse('--feature-gates', [pairs.error.message]);
  const given = pairs.value;
  const enabled = new Map<string, boolean>();
  const errors: string[] = [];
  for (const [key, value] of given) {
    const specs = KNOWN.get(key);
    if (specs === undefined) {
      errors.push(`unrecognized feature gate: ${key} (${UNMODELLED_GATE_NOTE})`);
      return refuse('--feature-gates', errors);
    }
    const spec = specAt(specs, emulated);
    if (spec.lockToDefault === true && spec.default !== value) {
      errors.push(`cannot set feature gate ${key} to ${value}, feature is locked to ${spec.default}`);
      continue;
    }
    const special = SPECIAL.get(key);
    if (special !== undefined) {
      for (const [other, otherSpecs] of KNOWN) {
        if (SPECIAL.has(other) || enabled.has(other)) continue;
        if (specAt(otherSpecs, emulated).preRelease === special) enabled.set(other, value);
      }
      enabled.set(key, value);
      continue;
    }
    if (spec.preRelease === 'PRE-ALPHA') {
      errors.push(`cannot set feature gate ${key} to ${value}, feature is PreAlpha at emulated version ${formatMajorMinor(emulated)}`);
      continue;
    }
    enabled.set(key, value);
    if (spec.preRelease === '') warnings.push(`Setting GA feature gate ${key}=${value}. It will be removed in a future release.`);
  }
  return errors.length > 0 ? refuse('--feature-gates', errors) : ok(enabled);
}

/** The allocator two gate values choose (pkg/registry/core/rest/storage_core.go). */
function clusterIPAllocationOf(enabled: Readonly<Record<ModelledFeatureGate, boolean>>): ClusterIPAllocation {
  return enabled.MultiCIDRServiceAllocator ? { allocator: 'ipaddress', dualWrite: !enabled.DisableAllocatorDualWrite } : BITMAP_CLUSTER_IP_ALLOCATION;
}

/**
 * --feature-gates and --emulated-version as kube-apiserver v1.33 reads them: the emulated
 * version (1.31 to 1.33, default 1.33), then the gates at that version, then the range check.
 * A gate kubesvc does not model is refused with upstream's `unrecognized feature gate`, which
 * says which gates it models: accepting it would claim a behaviour nothing here has.
 */
export function parseClusterIPFeatureGates(flags: FeatureGateFlags = {}): ClusterIPFeatureGatesResult {
  const version = emulationVersion(flags.emulatedVersion ?? '');
  if (!version.ok) return version;
  const emulated = version.value;

  // The ColonSeparatedMultimapStringString flag: `component:` before a pair, none for kube.
  const byComponent = new Map<string, string[]>();
  for (const pair of (flags.featureGates ?? '').split(',')) {
    if (pair === '') continue;
    const at = pair.indexOf(':');
    const component = at < 0 ? '' : pair.slice(0, at).trim();
    const value = (at < 0 ? pair : pair.slice(at + 1)).trim();
    byComponent.set(component, [...(byComponent.get(component) ?? []), value]);
  }
  if (byComponent.has('') && byComponent.has('kube')) {
    return refuse('--feature-gates', ['set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use']);
  }
  for (const component of byComponent.keys()) if (component !== '' && component !== 'kube') return refuse('--feature-gates', [`component not registered: ${component}`]);
  const warnings: string[] = [];
  const set = setGates([...byComponent.values()].flat().join(','), emulated, warnings);
  if (!set.ok) return set;
  const explicit = set.value;

  // effectiveVersion.Validate, after the gates are set.
  if (compareMajorMinor(emulated, BINARY) > 0 || compareMajorMinor(emulated, FLOOR) < 0) {
    return refuse('--emulated-version', [`emulation version ${formatMajorMinor(emulated)} is not between [${MIN_KUBE_EMULATION_VERSION}, ${KUBE_BINARY_VERSION}]`]);
  }

  const value = (gate: ModelledFeatureGate): boolean => explicit.get(gate) ?? specAt(KNOWN.get(gate) ?? [], emulated).default;
  const enabled = {
    MultiCIDRServiceAllocator: value('MultiCIDRServiceAllocator'),
    DisableAllocatorDualWrite: value('DisableAllocatorDualWrite'),
    PreferSameTrafficDistribution: value('PreferSameTrafficDistribution'),
  };
  return ok({ emulatedVersion: formatMajorMinor(emulated), enabled, allocation: clusterIPAllocationOf(enabled), warnings });
}
