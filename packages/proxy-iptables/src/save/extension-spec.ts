// What the parser and the loader know about one match or target extension: its options
// (long names, aliases, whether they take an argument and may be negated) and how the
// kernel stores them, i.e. the options iptables-save prints back, in its order.

import type { IptFamily } from './address.js';
import type { Checked } from './errors.js';
import { fail, okValue } from './errors.js';
import type { NegatableValue, RuleOption } from './rule-spec.js';

export interface OptionSpec {
  /** The long name iptables-save prints, with its dashes (`--dport`). */
  readonly name: string;
  /** Other spellings iptables-restore accepts (`--destination-port`). */
  readonly aliases?: readonly string[];
  readonly takesArgument: boolean;
  readonly negatable: boolean;
}

/** What a canonicaliser may look at besides the extension's own options. */
export interface RuleContext {
  readonly family: IptFamily;
  /** Whose stored form: iptables-nft turns some matches into nftables expressions and reads them back differently. */
  readonly backend: 'nft' | 'legacy';
  readonly table: string;
  /** The rule's canonical `-p` (lower-case name), if any. */
  readonly protocol?: NegatableValue;
}

export interface ExtensionSpec {
  readonly name: string;
  readonly options: readonly OptionSpec[];
  /** The options as stored and printed by iptables-save, or why iptables refuses them. */
  readonly canonical: (options: readonly RuleOption[], context: RuleContext) => Checked<readonly RuleOption[]>;
}

export function findOption(spec: ExtensionSpec, name: string): OptionSpec | undefined {
  return spec.options.find((o) => o.name === name || (o.aliases ?? []).includes(name));
}

/** The options of `spec` by canonical name, refusing repeats as xtables does. */
export function optionsByName(
  spec: ExtensionSpec,
  options: readonly RuleOption[],
): Checked<ReadonlyMap<string, RuleOption>> {
  const seen = new Map<string, RuleOption>();
  for (const option of options) {
    if (seen.has(option.name)) return fail(`${spec.name}: option "${option.name}" can only be used once.`);
    seen.set(option.name, option);
  }
  return okValue(seen);
}

export function option(name: string, negated: boolean, args: readonly string[] = []): RuleOption {
  return { name, negated, args };
}

/** An unsigned number as strtoul(…, 0) reads it: 0x… hex, 0… octal, else decimal. */
export function parseUnsigned(text: string, max: number): number | undefined {
  let value: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (/^0[0-7]*$/.test(text)) value = text.length === 1 ? 0 : Number.parseInt(text.slice(1), 8);
  else if (/^[1-9][0-9]*$/.test(text)) value = Number(text);
  else return undefined;
  return Number.isSafeInteger(value) && value <= max ? value : undefined;
}

export function parseDecimal(text: string, max: number): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value <= max ? value : undefined;
}

export interface PortRange {
  readonly min: number;
  readonly max: number;
}

/** `N`, `N:M`, `N:` or `:M` (numeric only; service names are not modelled). */
export function parsePortRange(text: string): PortRange | undefined {
  const colon = text.indexOf(':');
  if (colon === -1) {
    const port = parseDecimal(text, 65535);
    return port === undefined ? undefined : { min: port, max: port };
  }
  const lowText = text.slice(0, colon);
  const highText = text.slice(colon + 1);
  const min = lowText === '' ? 0 : parseDecimal(lowText, 65535);
  const max = highText === '' ? 65535 : parseDecimal(highText, 65535);
  if (min === undefined || max === undefined || min > max) return undefined;
  return { min, max };
}

export function formatPortRange(range: PortRange, separator: ':' | '-'): string {
  return range.min === range.max ? `${range.min}` : `${range.min}${separator}${range.max}`;
}

export function protocolIs(context: RuleContext, names: readonly string[]): boolean {
  return context.protocol !== undefined && !context.protocol.negated && names.includes(context.protocol.value);
}
