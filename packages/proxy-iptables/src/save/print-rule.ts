// Printing one rule as iptables-save prints it: `-A CHAIN`, then `-s`, `-d`, `-i`, `-o`, `-p`
// (each after its `!`), then every match as `-m NAME` with its options, then `-j`/`-g` and the
// target's options. The comment is quoted as iptables-save quotes it; other arguments are
// printed as they are. The output is also valid iptables-restore input.
// upstream: iptables iptables/iptables.c (save_rule_iptables / print_rule), nft-shared.c.

import type { RuleOption, RuleSpec } from './rule-spec.js';
import { quoteSaveString } from './save-quote.js';

function printOption(option: RuleOption): string {
  const args = option.args.map((a) => (option.name === '--comment' ? quoteSaveString(a) : a));
  return `${option.negated ? ' !' : ''} ${option.name}${args.map((a) => ` ${a}`).join('')}`;
}

export function printSaveRule(chain: string, rule: RuleSpec, command: '-A' | '-I' = '-A'): string {
  let out = `${command} ${chain}`;
  const header: readonly [string, RuleSpec['source']][] = [
    ['-s', rule.source],
    ['-d', rule.destination],
    ['-i', rule.inInterface],
    ['-o', rule.outInterface],
    ['-p', rule.protocol],
  ];
  for (const [flag, value] of header) {
    if (value !== undefined) out += `${value.negated ? ' !' : ''} ${flag} ${value.value}`;
  }
  for (const match of rule.matches) {
    out += ` -m ${match.module}${match.options.map(printOption).join('')}`;
  }
  if (rule.target !== undefined) {
    out += ` ${rule.target.goto ? '-g' : '-j'} ${rule.target.name}${rule.target.options.map(printOption).join('')}`;
  }
  return out;
}
