// The target extensions kube-proxy uses, and what iptables-save prints for each after the
// kernel has stored it (checked against iptables-nft-save and iptables-legacy-save 1.8.9).
// upstream: iptables extensions/libipt_REJECT.c, libip6t_REJECT.c, libxt_DNAT.c (1.8.9
// keeps DNAT, SNAT and MASQUERADE there), libxt_MASQUERADE.c, libxt_MARK.c.

import { formatAddress, parseAddress } from './address.js';
import { fail, okValue } from './errors.js';
import type { ExtensionSpec, OptionSpec, PortRange } from './extension-spec.js';
import { formatPortRange, option, optionsByName, parseDecimal, protocolIs } from './extension-spec.js';
import { hex, parseMarkAndMask } from './match-extensions.js';
import type { RuleOption } from './rule-spec.js';

/** The verdicts that are not extensions: no options, always present. */
export const STANDARD_VERDICTS: readonly string[] = ['ACCEPT', 'DROP', 'RETURN'];

const opt = (name: string, takesArgument: boolean): OptionSpec => ({ name, takesArgument, negatable: false });

// [printed name, accepted spellings]
const REJECT_TYPES_V4: readonly (readonly [string, readonly string[]])[] = [
  ['icmp-net-unreachable', ['net-unreach']],
  ['icmp-host-unreachable', ['host-unreach']],
  ['icmp-port-unreachable', ['port-unreach']],
  ['icmp-proto-unreachable', ['proto-unreach']],
  ['icmp-net-prohibited', ['net-prohib']],
  ['icmp-host-prohibited', ['host-prohib']],
  ['tcp-reset', ['tcp-rst']],
  ['icmp-admin-prohibited', ['admin-prohib']],
];
const REJECT_TYPES_V6: readonly (readonly [string, readonly string[]])[] = [
  ['icmp6-no-route', ['no-route']],
  ['icmp6-adm-prohibited', ['adm-prohibited']],
  ['icmp6-addr-unreachable', ['addr-unreach']],
  ['icmp6-port-unreachable', ['port-unreach']],
  ['tcp-reset', []],
  ['icmp6-policy-fail', ['policy-fail']],
  ['icmp6-reject-route', ['reject-route']],
];

const reject: ExtensionSpec = {
  name: 'REJECT',
  options: [opt('--reject-with', true)],
  canonical(options, context) {
    const byName = optionsByName(reject, options);
    if (!byName.ok) return byName;
    const table = context.family === 4 ? REJECT_TYPES_V4 : REJECT_TYPES_V6;
    const given = byName.value.get('--reject-with')?.args[0];
    // With no --reject-with the kernel stores port-unreachable, and iptables-save prints it.
    const printed =
      given === undefined
        ? context.family === 4
          ? 'icmp-port-unreachable'
          : 'icmp6-port-unreachable'
        : table.find(([name, aliases]) => name === given || aliases.includes(given))?.[0];
    if (printed === undefined) return fail(`unknown reject type "${given ?? ''}"`);
    if (printed === 'tcp-reset' && !protocolIs(context, ['tcp'])) {
      return fail('RULE_APPEND failed (Invalid argument): REJECT --reject-with tcp-reset needs -p tcp');
    }
    return okValue([option('--reject-with', false, [printed])]);
  },
};

function natOnly(target: string, table: string): { readonly ok: false; readonly message: string } | undefined {
  return table === 'nat' ? undefined : fail(`RULE_APPEND failed (Invalid argument): ${target} is only valid in the nat table`);
}

const PORT_PROTOCOLS = ['tcp', 'udp', 'sctp'];

/** A NAT port range, `PORT` or `PORT-PORT`. */
function parseNatPorts(text: string): PortRange | undefined {
  const dash = text.indexOf('-');
  const min = parseDecimal(dash === -1 ? text : text.slice(0, dash), 65535);
  const max = dash === -1 ? min : parseDecimal(text.slice(dash + 1), 65535);
  return min === undefined || max === undefined || min > max ? undefined : { min, max };
}

/** `ADDR[:PORT[-PORT]]`, IPv6 as `ADDR` or `[ADDR]:PORT[-PORT]`; address ranges are not modelled. */
function parseNatDestination(
  text: string,
  family: 4 | 6,
): { readonly address: bigint | undefined; readonly ports: PortRange | undefined } | undefined {
  let addressText: string;
  let portText: string | undefined;
  if (family === 6 && text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    addressText = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    portText = rest === '' ? undefined : rest.slice(1);
  } else if (family === 6) {
    addressText = text;
  } else {
    const colon = text.indexOf(':');
    addressText = colon === -1 ? text : text.slice(0, colon);
    portText = colon === -1 ? undefined : text.slice(colon + 1);
  }
  const address = addressText === '' && family === 4 ? undefined : parseAddress(addressText, family);
  if (address === undefined && addressText !== '') return undefined;
  if (portText === undefined) return { address, ports: undefined };
  const ports = parseNatPorts(portText);
  return ports === undefined ? undefined : { address, ports };
}

const dnat: ExtensionSpec = {
  name: 'DNAT',
  options: [opt('--to-destination', true), opt('--random', false), opt('--persistent', false)],
  canonical(options, context) {
    const notNat = natOnly('DNAT', context.table);
    if (notNat !== undefined) return notNat;
    const byName = optionsByName(dnat, options);
    if (!byName.ok) return byName;
    const to = byName.value.get('--to-destination')?.args[0];
    if (to === undefined) return fail('DNAT: option "--to-destination" must be specified');
    const parsed = parseNatDestination(to, context.family);
    if (parsed === undefined) return fail(`Bad IP address "${to}"`);
    let printed = parsed.address === undefined ? '' : formatAddress(parsed.address, context.family);
    if (parsed.ports !== undefined) {
      if (!protocolIs(context, PORT_PROTOCOLS)) return fail('Need TCP, UDP, SCTP or DCCP with port specification');
      const ports = formatPortRange(parsed.ports, '-');
      printed = context.family === 6 ? `[${printed}]:${ports}` : `${printed}:${ports}`;
    }
    const out: RuleOption[] = [option('--to-destination', false, [printed])];
    if (byName.value.has('--random')) out.push(option('--random', false));
    if (byName.value.has('--persistent')) out.push(option('--persistent', false));
    return okValue(out);
  },
};

const masquerade: ExtensionSpec = {
  name: 'MASQUERADE',
  options: [opt('--to-ports', true), opt('--random', false), opt('--random-fully', false)],
  canonical(options, context) {
    const notNat = natOnly('MASQUERADE', context.table);
    if (notNat !== undefined) return notNat;
    const byName = optionsByName(masquerade, options);
    if (!byName.ok) return byName;
    const out: RuleOption[] = [];
    const ports = byName.value.get('--to-ports')?.args[0];
    if (ports !== undefined) {
      if (!protocolIs(context, PORT_PROTOCOLS)) return fail('Need TCP, UDP, SCTP or DCCP with port specification');
      const range = parseNatPorts(ports);
      if (range === undefined) return fail(`Port "${ports}" not valid`);
      out.push(option('--to-ports', false, [formatPortRange(range, '-')]));
    }
    if (byName.value.has('--random')) out.push(option('--random', false));
    if (byName.value.has('--random-fully')) out.push(option('--random-fully', false));
    return okValue(out);
  },
};

const MARK_OPERATIONS = ['--set-xmark', '--set-mark', '--and-mark', '--or-mark', '--xor-mark'];

/**
 * Every MARK operation is stored as (value, mask) and applied as mark = (mark & ~mask) ^ value;
 * iptables-save prints it as `--set-xmark value/mask`.
 */
export function markTargetXmark(operation: string, argument: string): { readonly value: number; readonly mask: number } | undefined {
  if (operation === '--set-xmark' || operation === '--set-mark') {
    const parsed = parseMarkAndMask(argument);
    if (parsed === undefined) return undefined;
    // --set-mark V/M clears M and sets V: mask M|V, value V.
    return operation === '--set-xmark' ? parsed : { value: parsed.value, mask: (parsed.mask | parsed.value) >>> 0 };
  }
  const parsed = parseMarkAndMask(argument);
  if (parsed === undefined || argument.includes('/')) return undefined;
  const bits = parsed.value;
  switch (operation) {
    case '--and-mark':
      return { value: 0, mask: ~bits >>> 0 };
    case '--or-mark':
      return { value: bits, mask: bits };
    case '--xor-mark':
      return { value: bits, mask: 0 };
    default:
      return undefined;
  }
}

const markTarget: ExtensionSpec = {
  name: 'MARK',
  options: MARK_OPERATIONS.map((name) => opt(name, true)),
  canonical(options) {
    const [given, ...more] = options;
    if (given === undefined || more.length > 0) return fail('MARK target: Parameter --set/and/or/xor-mark is required');
    const xmark = markTargetXmark(given.name, given.args[0] ?? '');
    if (xmark === undefined) return fail(`MARK: bad value for option "${given.name}"`);
    return okValue([option('--set-xmark', false, [`${hex(xmark.value)}/${hex(xmark.mask)}`])]);
  },
};

export const TARGET_EXTENSIONS: ReadonlyMap<string, ExtensionSpec> = new Map(
  [reject, dnat, masquerade, markTarget].map((spec) => [spec.name, spec] as const),
);

