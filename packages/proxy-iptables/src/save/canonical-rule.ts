// One rule as the kernel stores it, in the form iptables-save prints: addresses carry a
// prefix length with the host bits cleared (an any-address is dropped), the protocol is a
// lower-case name (`all` is dropped), and every match and target keeps only the options the
// extension prints back, canonicalised and in its print order (match-extensions.ts,
// target-extensions.ts). Whether a jump target exists depends on the table and is checked
// by the loader.
// upstream: iptables iptables/iptables.c and ip6tables.c (print_rule / save_rule_iptables),
// iptables/nft-ipv4.c and nft-ipv6.c (nft save), libxtables/xtables.c (xtables_parse_protocol).

import type { IptFamily } from './address.js';
import { formatMaskedAddress, parseMaskedAddress } from './address.js';
import type { Checked } from './errors.js';
import { fail, okValue } from './errors.js';
import type { RuleContext } from './extension-spec.js';
import { MATCH_EXTENSIONS } from './match-extensions.js';
import type { NegatableValue, RuleMatch, RuleSpec, RuleTarget } from './rule-spec.js';
import { STANDARD_VERDICTS, TARGET_EXTENSIONS } from './target-extensions.js';

/** IFNAMSIZ is 16 with the NUL. */
const MAX_INTERFACE_NAME = 15;

// The protocols the view models, by lower-case name and number; iptables-save prints the name.
export const PROTOCOL_NAMES: ReadonlyMap<string, string> = new Map([
  ['tcp', 'tcp'],
  ['6', 'tcp'],
  ['udp', 'udp'],
  ['17', 'udp'],
  ['sctp', 'sctp'],
  ['132', 'sctp'],
  ['icmp', 'icmp'],
  ['1', 'icmp'],
  ['all', 'all'],
  ['0', 'all'],
]);

function canonicalAddress(value: NegatableValue | undefined, family: IptFamily): Checked<NegatableValue | undefined> {
  if (value === undefined) return okValue(undefined);
  const parsed = parseMaskedAddress(value.value, family);
  if (parsed === undefined) return fail(`host/network \`${value.value}' not found`);
  if (parsed.prefix === 0) {
    // iptables-nft refuses `! -s 0.0.0.0/0` (legacy would keep it); the view refuses it too.
    return value.negated ? fail(`RULE_APPEND failed (Invalid argument): ! ${value.value} never matches`) : okValue(undefined);
  }
  return okValue({ value: formatMaskedAddress(parsed, family), negated: value.negated });
}

function canonicalProtocol(value: NegatableValue | undefined, family: IptFamily): Checked<NegatableValue | undefined> {
  if (value === undefined) return okValue(undefined);
  const name = PROTOCOL_NAMES.get(value.value.toLowerCase());
  if (name === undefined || (name === 'icmp' && family === 6)) return fail(`unknown protocol "${value.value}" specified`);
  if (name === 'all') return value.negated ? fail("rule would never match protocol") : okValue(undefined);
  return okValue({ value: name, negated: value.negated });
}

function checkInterface(value: NegatableValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.value.length > MAX_INTERFACE_NAME) {
    return `interface name \`${value.value}' must be shorter than IFNAMSIZ (${MAX_INTERFACE_NAME})`;
  }
  return undefined;
}

/** The canonical rule, or why iptables-restore refuses it. Jump targets are not resolved here. */
export function canonicalRule(rule: RuleSpec, family: IptFamily, table: string, backend: 'nft' | 'legacy'): Checked<RuleSpec> {
  const source = canonicalAddress(rule.source, family);
  if (!source.ok) return source;
  const destination = canonicalAddress(rule.destination, family);
  if (!destination.ok) return destination;
  const protocol = canonicalProtocol(rule.protocol, family);
  if (!protocol.ok) return protocol;
  const badInterface = checkInterface(rule.inInterface) ?? checkInterface(rule.outInterface);
  if (badInterface !== undefined) return fail(badInterface);

  const context: RuleContext =
    protocol.value === undefined ? { family, table, backend } : { family, table, backend, protocol: protocol.value };
  // iptables-nft stores tcp/udp ports as nftables comparisons and folds several such matches
  // of one rule into one when it reads them back; the view does not model the folding.
  const portMatches = rule.matches.filter((m) => m.module === 'tcp' || m.module === 'udp').length;
  if (backend === 'nft' && portMatches > 1) {
    return fail('several tcp/udp matches in one rule: iptables-nft-save folds them (not modelled)');
  }
  const matches: RuleMatch[] = [];
  for (const match of rule.matches) {
    const spec = MATCH_EXTENSIONS.get(match.module);
    if (spec === undefined) return fail(`Couldn't load match \`${match.module}':No such file or directory`);
    const options = spec.canonical(match.options, context);
    if (!options.ok) return options;
    matches.push({ module: match.module, options: options.value });
  }

  let target: RuleTarget | undefined;
  if (rule.target !== undefined) {
    const spec = rule.target.goto ? undefined : TARGET_EXTENSIONS.get(rule.target.name);
    if (spec !== undefined) {
      const options = spec.canonical(rule.target.options, context);
      if (!options.ok) return options;
      target = { name: rule.target.name, goto: false, options: options.value };
    } else {
      if (rule.target.name === 'DROP' && table === 'nat') {
        return fail('The "nat" table is not intended for filtering, the use of DROP is therefore inhibited.');
      }
      if (rule.target.options.length > 0) return fail(`unknown option "${rule.target.options[0]?.name ?? ''}"`);
      if (rule.target.goto && (STANDARD_VERDICTS.includes(rule.target.name) || TARGET_EXTENSIONS.has(rule.target.name))) {
        return fail(`goto '${rule.target.name}' is not a chain`);
      }
      target = { name: rule.target.name, goto: rule.target.goto, options: [] };
    }
  }

  const out: { -readonly [K in keyof RuleSpec]: RuleSpec[K] } = { matches };
  if (source.value !== undefined) out.source = source.value;
  if (destination.value !== undefined) out.destination = destination.value;
  if (rule.inInterface !== undefined) out.inInterface = rule.inInterface;
  if (rule.outInterface !== undefined) out.outInterface = rule.outInterface;
  if (protocol.value !== undefined) out.protocol = protocol.value;
  if (target !== undefined) out.target = target;
  return okValue(out);
}
