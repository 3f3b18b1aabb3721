// Upstream's string validators: each returns the list of messages upstream returns (empty
// when the value is valid), so callers wrap each message in a FieldError exactly where
// upstream does.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
//           staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go (v0.33: the strict
//           IsValidIP and IsValidCIDR, here isValidIPStrict and isValidCIDRStrict)
//           staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go (name functions)
//
// Lengths are UTF-8 byte counts, as Go's len() measures them, although upstream's message
// says "characters".
import { formatCIDR, parseCIDRSloppy } from '../net/cidr.js';
import { formatIP, parseAddress, parseIPSloppy, type IP } from '../net/ip.js';
import { goQuote } from './field-errors.js';

/** The length Go's len() gives a string: its UTF-8 bytes. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Each example is followed by ", " and joined with " or ", which is where upstream's
  // double space in "'my-name',  or '123-abc'" comes from.
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMaxLength = 63;
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);

/** IsQualifiedName: label keys, annotation keys (lower-cased first), finalizers, appProtocol. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) {
      errs.push(`prefix part ${emptyError()}`);
    } else {
      for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
    }
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) {
    errs.push(`name part ${emptyError()}`);
  } else if (utf8Length(name) > qualifiedNameMaxLength) {
    errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  }
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMaxLength = 63;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (!labelValueRegexp.test(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelMaxLength = 63;
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainMaxLength = 253;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > dns1123LabelMaxLength) errs.push(maxLenError(dns1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots
    // (length was reported above), so upstream says just that.
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035LabelMaxLength = 63;
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > dns1035LabelMaxLength) errs.push(maxLenError(dns1035LabelMaxLength));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** IsValidPortNum: 1..65535. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

const portNameCharsetRegex = /^[-a-z0-9]+$/;
const portNameOneLetterRegexp = /[a-z]/;

/** IsValidPortName: an IANA_SVC_NAME (RFC 6335), lower case only. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (utf8Length(port) > 15) errs.push(maxLenError(15));
  if (!portNameCharsetRegex.test(port)) {
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  }
  if (!portNameOneLetterRegexp.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) {
    errs.push('must not begin or end with a hyphen');
  }
  return errs;
}

// --- IP addresses -------------------------------------------------------------------
// Upstream parses with k8s.io/utils/net ParseIPSloppy / ParseCIDRSloppy: Go 1.16's
// net.ParseIP, which (unlike later Go) accepts IPv4 octets with leading zeros. src/net
// implements that grammar; an IPv4-mapped IPv6 address counts as IPv4, as in Go.

export function isValidIP(value: string): string[] {
  return parseIPSloppy(value).ok ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

export function isValidIPv4Address(value: string): string[] {
  const ip = parseIPSloppy(value);
  return ip.ok && ip.value.family === 4 ? [] : ['must be a valid IPv4 address'];
}

export function isValidIPv6Address(value: string): string[] {
  const ip = parseIPSloppy(value);
  return ip.ok && ip.value.family === 6 ? [] : ['must be a valid IPv6 address'];
}

/**
 * netutils.IsDualStackIPStrings: at least one address of each family. False when one does not
 * parse (upstream also returns an error, which its callers report as they see fit).
 */
export function isDualStackIPStrings(ips: readonly string[]): boolean {
  let v4 = false;
  let v6 = false;
  for (const text of ips) {
    const ip = parseIPSloppy(text);
    if (!ip.ok) return false;
    if (ip.value.family === 6) v6 = true;
    else v4 = true;
  }
  return v4 && v6;
}

/** ParseCIDRSloppy accepts it: leading zeros allowed in IPv4 octets and in the prefix length. */
export function isValidCIDR(value: string): string[] {
  return parseCIDRSloppy(value).ok ? [] : ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'];
}

// --- Strict IP and CIDR validation (apimachinery v0.33) --------------------------------
// Fields added since strict validation exists (IPAddress names, ServiceCIDR cidrs) are held
// to it: the value must parse as netip.ParseAddr / netip.ParsePrefix parse it (no leading
// zeros, in IPv4 octets or in a prefix length), must not be an IPv4-mapped IPv6 address, and
// must be written exactly as Go prints it back (net.IP.String(), net.IPNet.String()). The
// first check is the sloppy parse with the legacy message, so that a value that is no IP at
// all is reported as before.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go (v0.33) parseIP,
//   IsValidIP, parseCIDR, IsValidCIDR

const IP_SLOPPY_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const CIDR_SLOPPY_MSG = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/**
 * netip's Is4In6 for text that parsed: an address written in IPv6 syntax (the first '.' or
 * ':' decides, as in Go) that names an IPv4 address. The parsers here fold ::ffff:0:0/96 into
 * family 4, so the spelling is what tells it apart.
 */
function isMappedSpelling(text: string, ip: IP): boolean {
  return ip.family === 4 && /^[^.]*:/.test(text);
}

function canonicalError(canonical: string): string {
  return `must be in canonical form (${goQuote(canonical)})`;
}

/**
 * IsValidIP (v0.33, strict): the messages for an address that is not valid, not strict, or
 * not in canonical form. Unlike isValidIP (the legacy check older fields keep), "010.1.1.1",
 * "::ffff:1.2.3.4" and "2001:DB8::1" are refused.
 */
export function isValidIPStrict(value: string): string[] {
  const sloppy = parseAddress(value, true);
  if (sloppy === undefined) return [IP_SLOPPY_MSG];
  const strict = parseAddress(value, false);
  // netip.ParseAddr refuses what the sloppy parser took only for its leading zeros.
  if (strict === undefined) return ['must not have leading 0s'];
  if (isMappedSpelling(value, strict)) return ['must not be an IPv4-mapped IPv6 address'];
  const canonical = formatIP(sloppy);
  return value === canonical ? [] : [canonicalError(canonical)];
}

/** netip.ParsePrefix's rule for the prefix length: decimal digits, no sign, no leading zero. */
function isStrictPrefixLength(text: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(text);
}

/**
 * IsValidCIDR (v0.33, strict): a subnet ("192.168.0.0/24", no host bits), parsed strictly and
 * written as net.IPNet.String() prints it.
 */
export function isValidCIDRStrict(value: string): string[] {
  const sloppy = parseCIDRSloppy(value);
  if (!sloppy.ok) return [CIDR_SLOPPY_MSG];
  // The sloppy parse succeeded, so there is exactly one '/' and the rest are digits.
  const slash = value.indexOf('/');
  const addressText = value.slice(0, slash);
  const strictIP = parseAddress(addressText, false);
  if (strictIP === undefined || !isStrictPrefixLength(value.slice(slash + 1))) {
    return ['must not have leading 0s in IP or prefix length'];
  }
  if (isMappedSpelling(addressText, strictIP)) return ['must not have an IPv4-mapped IPv6 address'];
  const { ip, cidr } = sloppy.value;
  if (ip.family !== cidr.network.family || ip.value !== cidr.network.value) {
    return ['must not have bits set beyond the prefix length'];
  }
  const canonical = formatCIDR(cidr);
  return value === canonical ? [] : [canonicalError(canonical)];
}

// --- Name validation functions ----------------------------------------------------------
// upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go

/** A ValidateNameFunc: prefix is true when validating generateName. */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/**
 * For a generateName, upstream replaces a trailing dash so that the prefix validates as a
 * name. It drops TWO characters and appends "a" ("abc-" is checked as "aba"); kept as is,
 * since it decides which prefixes pass. A lone "-" is left alone (and fails), as the
 * length guard of apimachinery's pkg/api/validation/generic.go maskTrailingDash does.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/**
 * ValidatePathSegmentName: the generic registry's name rule, for names that become one
 * segment of a request path. upstream: staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go
 */
export const validatePathSegmentName: ValidateNameFunc = (name, prefix) => {
  if (!prefix) {
    for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  }
  return ['/', '%'].filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
};

// upstream: pkg/apis/core/validation/validation.go and pkg/apis/discovery/validation/validation.go
export const validateNamespaceName: ValidateNameFunc = nameIsDNSLabel;
export const validateServiceName: ValidateNameFunc = nameIsDNS1035Label;
export const validateEndpointsName: ValidateNameFunc = nameIsDNSSubdomain;
export const validatePodName: ValidateNameFunc = nameIsDNSSubdomain;
export const validateNodeName: ValidateNameFunc = nameIsDNSSubdomain;
export const validateEndpointSliceName: ValidateNameFunc = nameIsDNSSubdomain;
