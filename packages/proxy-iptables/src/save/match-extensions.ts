// The match extensions kube-proxy uses, and what iptables-save prints for each after the
// kernel has stored it. Formats and orders were checked against iptables-nft-save and
// iptables-legacy-save 1.8.9 (see the fixtures in this folder).
// upstream: iptables extensions/libxt_comment.c, libxt_tcp.c, libxt_udp.c, libxt_sctp.c,
// libxt_multiport.c, libxt_addrtype.c, libxt_mark.c, libxt_statistic.c, libxt_recent.c,
// libxt_conntrack.c, libxt_nfacct.c.

import { familyBits } from '@kubesvc/api-types';
import { formatAddress, parseAddress } from './address.js';
import type { Checked } from './errors.js';
import { fail, okValue } from './errors.js';
import type { ExtensionSpec, OptionSpec, RuleContext } from './extension-spec.js';
import {
  formatPortRange,
  option,
  optionsByName,
  parseDecimal,
  parsePortRange,
  parseUnsigned,
  protocolIs,
} from './extension-spec.js';
import { formatSavedProbability, kernelProbability } from './probability.js';
import type { RuleOption } from './rule-spec.js';

/**
 * iptables keeps at most 255 bytes of a comment (XT_MAX_COMMENT_LEN 256, with the NUL): a
 * longer one is cut silently (upstream: iptables libxtables/xtoptions.c, xtopt_parse_string).
 */
export const MAX_COMMENT_BYTES = 255;

/** The comment as stored: cut to 255 UTF-8 bytes; unlike iptables, never inside a character. */
export function storedComment(text: string): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= MAX_COMMENT_BYTES) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = encoder.encode(ch).length;
    if (bytes + size > MAX_COMMENT_BYTES) break;
    out += ch;
    bytes += size;
  }
  return out;
}

const opt = (name: string, takesArgument: boolean, negatable: boolean, aliases?: readonly string[]): OptionSpec =>
  aliases === undefined ? { name, takesArgument, negatable } : { name, takesArgument, negatable, aliases };

const comment: ExtensionSpec = {
  name: 'comment',
  options: [opt('--comment', true, false)],
  canonical(options) {
    const byName = optionsByName(comment, options);
    if (!byName.ok) return byName;
    const text = byName.value.get('--comment');
    if (text === undefined) return fail('comment: option "--comment" must be specified');
    return okValue([option('--comment', false, [storedComment(text.args[0] ?? '')])]);
  },
};

/** tcp, udp and sctp share --sport/--dport; iptables-save prints sport first, omits 0:65535. */
function portMatch(name: 'tcp' | 'udp' | 'sctp'): ExtensionSpec {
  const spec: ExtensionSpec = {
    name,
    options: [opt('--sport', true, true, ['--source-port']), opt('--dport', true, true, ['--destination-port'])],
    canonical(options, context) {
      if (!protocolIs(context, [name])) return fail(`RULE_APPEND failed (Invalid argument): -m ${name} needs -p ${name}`);
      const byName = optionsByName(spec, options);
      if (!byName.ok) return byName;
      const out: RuleOption[] = [];
      for (const key of ['--sport', '--dport']) {
        const given = byName.value.get(key);
        if (given === undefined) continue;
        const range = parsePortRange(given.args[0] ?? '');
        if (range === undefined) return fail(`invalid port/service \`${given.args[0] ?? ''}' specified`);
        const full = range.min === 0 && range.max === 65535;
        // iptables-legacy-save prints `-m tcp` alone for it, iptables-nft-save drops the match.
        if (full && given.negated) return fail(`${key} ! ${given.args[0] ?? ''} never matches (not modelled)`);
        if (full) continue;
        // iptables-nft stores tcp/udp ports as nftables comparisons; `! --dport 0:N` comes
        // back as `--dport N+1:65535` (sctp stays an xtables match).
        if (context.backend === 'nft' && name !== 'sctp' && given.negated && range.min === 0) {
          out.push(option(key, false, [formatPortRange({ min: range.max + 1, max: 65535 }, ':')]));
          continue;
        }
        out.push(option(key, given.negated, [formatPortRange(range, ':')]));
      }
      return okValue(out);
    },
  };
  return spec;
}

const MULTIPORT_MAX = 15;

const multiport: ExtensionSpec = {
  name: 'multiport',
  options: [
    opt('--sports', true, true, ['--source-ports']),
    opt('--dports', true, true, ['--destination-ports']),
    opt('--ports', true, true),
  ],
  canonical(options, context) {
    if (!protocolIs(context, ['tcp', 'udp', 'sctp'])) {
      return fail("multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'");
    }
    if (options.length !== 1) return fail('multiport: exactly one of --sports, --dports or --ports is needed');
    const [given] = options;
    if (given === undefined) return fail('multiport: exactly one of --sports, --dports or --ports is needed');
    const parts = (given.args[0] ?? '').split(',');
    const printed: string[] = [];
    let slots = 0;
    for (const part of parts) {
      const range = parsePortRange(part);
      if (range === undefined || part.startsWith(':') || part.endsWith(':')) {
        return fail(`invalid port/service \`${part}' specified`);
      }
      slots += part.includes(':') ? 2 : 1;
      printed.push(part.includes(':') ? `${range.min}:${range.max}` : `${range.min}`);
    }
    if (slots > MULTIPORT_MAX) return fail('too many ports specified');
    return okValue([option(given.name, given.negated, [printed.join(',')])]);
  },
};

// Bit order of enum xt_addrtype_type, which is the order iptables-save lists types in.
const ADDRESS_TYPES = [
  'UNSPEC',
  'UNICAST',
  'LOCAL',
  'BROADCAST',
  'ANYCAST',
  'MULTICAST',
  'BLACKHOLE',
  'UNREACHABLE',
  'PROHIBIT',
  'THROW',
  'NAT',
  'XRESOLVE',
];

const IPV6_UNSUPPORTED_ADDRESS_TYPES = ['BROADCAST', 'BLACKHOLE', 'PROHIBIT', 'THROW', 'NAT', 'XRESOLVE'];

function typeList(text: string, known: readonly string[], what: string): Checked<string> {
  const wanted = new Set<string>();
  for (const part of text.split(',')) {
    const upper = part.toUpperCase();
    if (!known.includes(upper)) return fail(`Bad ${what} "${part}"`);
    wanted.add(upper);
  }
  return okValue(known.filter((t) => wanted.has(t)).join(','));
}

const addrtype: ExtensionSpec = {
  name: 'addrtype',
  options: [opt('--src-type', true, true), opt('--dst-type', true, true)],
  canonical(options, context) {
    const byName = optionsByName(addrtype, options);
    if (!byName.ok) return byName;
    const out: RuleOption[] = [];
    for (const key of ['--src-type', '--dst-type']) {
      const given = byName.value.get(key);
      if (given === undefined) continue;
      const list = typeList(given.args[0] ?? '', ADDRESS_TYPES, 'address type');
      if (!list.ok) return list;
      // xt_addrtype refuses the IPv4-only types for IPv6 (upstream: linux net/netfilter/xt_addrtype.c).
      const types = list.value.split(',');
      if (context.family === 6 && types.some((t) => IPV6_UNSUPPORTED_ADDRESS_TYPES.includes(t))) {
        return fail('RULE_APPEND failed (Invalid argument): ipv6 does not support BROADCAST, BLACKHOLE, PROHIBIT, THROW, NAT or XRESOLVE matching');
      }
      out.push(option(key, given.negated, [list.value]));
    }
    if (out.length === 0) return fail('addrtype: you must specify --src-type or --dst-type');
    return okValue(out);
  },
};

const U32_MAX = 0xffff_ffff;

/** `VALUE[/MASK]` with strtoul numbers; the mask defaults to all ones. */
export function parseMarkAndMask(text: string): { readonly value: number; readonly mask: number } | undefined {
  const slash = text.indexOf('/');
  const value = parseUnsigned(slash === -1 ? text : text.slice(0, slash), U32_MAX);
  const mask = slash === -1 ? U32_MAX : parseUnsigned(text.slice(slash + 1), U32_MAX);
  if (value === undefined || mask === undefined) return undefined;
  return { value, mask };
}

export function hex(n: number): string {
  return `0x${n.toString(16)}`;
}

const mark: ExtensionSpec = {
  name: 'mark',
  options: [opt('--mark', true, true)],
  canonical(options) {
    const byName = optionsByName(mark, options);
    if (!byName.ok) return byName;
    const given = byName.value.get('--mark');
    if (given === undefined) return fail('mark: option "--mark" must be specified');
    const parsed = parseMarkAndMask(given.args[0] ?? '');
    if (parsed === undefined) return fail(`mark: bad value for option "--mark", or out of range (0-4294967295).`);
    const text = parsed.mask === U32_MAX ? hex(parsed.value) : `${hex(parsed.value)}/${hex(parsed.mask)}`;
    return okValue([option('--mark', given.negated, [text])]);
  },
};

const statistic: ExtensionSpec = {
  name: 'statistic',
  options: [opt('--mode', true, false), opt('--probability', true, true)],
  canonical(options) {
    const byName = optionsByName(statistic, options);
    if (!byName.ok) return byName;
    const mode = byName.value.get('--mode');
    if (mode === undefined) return fail('statistic: option "--mode" must be specified');
    if (mode.args[0] !== 'random') return fail(`statistic: mode "${mode.args[0] ?? ''}" is not modelled (only random)`);
    const probability = byName.value.get('--probability');
    if (probability === undefined) return fail('--probability must be specified when using random mode');
    const fixed = kernelProbability(probability.args[0] ?? '');
    if (fixed === undefined) {
      return fail('statistic: bad value for option "--probability", or out of range (0-1).');
    }
    return okValue([
      option('--mode', false, ['random']),
      option('--probability', probability.negated, [formatSavedProbability(fixed)]),
    ]);
  },
};

/** XT_RECENT_NAME_LEN is 200 with the NUL. */
const RECENT_NAME_MAX = 199;
const RECENT_COMMANDS = ['--set', '--rcheck', '--update', '--remove'];

const recent: ExtensionSpec = {
  name: 'recent',
  options: [
    opt('--set', false, true),
    opt('--rcheck', false, true),
    opt('--update', false, true),
    opt('--remove', false, true),
    opt('--seconds', true, false),
    opt('--reap', false, false),
    opt('--hitcount', true, false),
    opt('--rttl', false, false),
    opt('--name', true, false),
    opt('--mask', true, false),
    opt('--rsource', false, false),
    opt('--rdest', false, false),
  ],
  canonical(options, context: RuleContext) {
    const byName = optionsByName(recent, options);
    if (!byName.ok) return byName;
    const get = (key: string): RuleOption | undefined => byName.value.get(key);
    const commands = RECENT_COMMANDS.filter((c) => get(c) !== undefined);
    const [command] = commands;
    if (command === undefined || commands.length > 1) {
      return fail("recent: you must specify one of `--set', `--rcheck' `--update' or `--remove'");
    }
    const out: RuleOption[] = [option(command, get(command)?.negated ?? false)];
    const checks = command === '--rcheck' || command === '--update';
    const seconds = get('--seconds');
    let secondsValue = 0;
    if (seconds !== undefined) {
      const parsed = parseDecimal(seconds.args[0] ?? '', U32_MAX);
      if (parsed === undefined) return fail('recent: bad value for option "--seconds"');
      secondsValue = parsed;
      if (parsed !== 0) out.push(option('--seconds', false, [`${parsed}`]));
    }
    if (get('--reap') !== undefined) {
      if (secondsValue === 0) return fail('recent: --reap requires --seconds');
      out.push(option('--reap', false));
    }
    const hitcount = get('--hitcount');
    if (hitcount !== undefined) {
      const parsed = parseDecimal(hitcount.args[0] ?? '', U32_MAX);
      if (parsed === undefined) return fail('recent: bad value for option "--hitcount"');
      if (parsed !== 0) out.push(option('--hitcount', false, [`${parsed}`]));
    }
    if (get('--rttl') !== undefined) out.push(option('--rttl', false));
    // xt_recent refuses modifiers on --set and --remove.
    if (!checks && out.length > 1) {
      return fail('RULE_APPEND failed (Invalid argument): recent --seconds, --reap, --hitcount and --rttl need --rcheck or --update');
    }
    const name = get('--name')?.args[0] ?? 'DEFAULT';
    if (name.length === 0 || name.length > RECENT_NAME_MAX) return fail('recent: bad value for option "--name"');
    out.push(option('--name', false, [name]));
    const maskText = get('--mask')?.args[0];
    const mask = maskText === undefined ? (1n << BigInt(familyBits(context.family))) - 1n : parseAddress(maskText, context.family);
    if (mask === undefined) return fail(`recent: bad value for option "--mask"`);
    out.push(option('--mask', false, [formatAddress(mask, context.family)]));
    if (get('--rsource') !== undefined && get('--rdest') !== undefined) {
      return fail('recent: --rsource and --rdest are exclusive');
    }
    out.push(option(get('--rdest') !== undefined ? '--rdest' : '--rsource', false));
    return okValue(out);
  },
};

// The order iptables-save lists conntrack states in (libxt_conntrack print_state).
const CONNTRACK_STATES = ['INVALID', 'NEW', 'RELATED', 'ESTABLISHED', 'UNTRACKED', 'SNAT', 'DNAT'];

const conntrack: ExtensionSpec = {
  name: 'conntrack',
  options: [opt('--ctstate', true, true)],
  canonical(options) {
    const byName = optionsByName(conntrack, options);
    if (!byName.ok) return byName;
    const given = byName.value.get('--ctstate');
    if (given === undefined) return fail('conntrack: at least one option is required');
    const list = typeList(given.args[0] ?? '', CONNTRACK_STATES, 'ctstate');
    if (!list.ok) return list;
    return okValue([option('--ctstate', given.negated, [list.value])]);
  },
};

const nfacct: ExtensionSpec = {
  name: 'nfacct',
  options: [opt('--nfacct-name', true, false)],
  canonical(options) {
    const byName = optionsByName(nfacct, options);
    if (!byName.ok) return byName;
    const given = byName.value.get('--nfacct-name');
    if (given === undefined) return fail('nfacct: option "--nfacct-name" must be specified');
    return okValue([option('--nfacct-name', false, [given.args[0] ?? ''])]);
  },
};

export const MATCH_EXTENSIONS: ReadonlyMap<string, ExtensionSpec> = new Map(
  [comment, portMatch('tcp'), portMatch('udp'), portMatch('sctp'), multiport, addrtype, mark, statistic, recent, conntrack, nfacct].map(
    (spec) => [spec.name, spec] as const,
  ),
);
