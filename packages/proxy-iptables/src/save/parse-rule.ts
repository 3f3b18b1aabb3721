// Reading the words of one rule (everything after `-A CHAIN`) into a RuleSpec, as
// iptables-restore does: `-s/-d/-i/-o/-p` fill the header, `-m NAME` loads a match, `-j`/`-g`
// set the target, and every `--option` goes to the target if it knows the option, else to
// the most recently loaded match that knows it, else to the protocol's implicit match
// (`-p tcp --dport 80` loads `-m tcp`, appended where the option appears). A `!` negates the
// word after it. Nothing is canonicalised here: option text stays as written.
// upstream: iptables iptables/xshared.c (do_parse), iptables/iptables.c (command_default).

import { PROTOCOL_NAMES } from './canonical-rule.js';
import type { Checked } from './errors.js';
import { fail, okValue } from './errors.js';
import type { ExtensionSpec } from './extension-spec.js';
import { findOption } from './extension-spec.js';
import { MATCH_EXTENSIONS } from './match-extensions.js';
import type { NegatableValue, RuleMatch, RuleOption, RuleSpec, RuleTarget } from './rule-spec.js';
import { TARGET_EXTENSIONS } from './target-extensions.js';

type HeaderField = 'source' | 'destination' | 'inInterface' | 'outInterface' | 'protocol';

const HEADER_OPTIONS: ReadonlyMap<string, HeaderField> = new Map([
  ['-s', 'source'],
  ['--source', 'source'],
  ['--src', 'source'],
  ['-d', 'destination'],
  ['--destination', 'destination'],
  ['--dst', 'destination'],
  ['-i', 'inInterface'],
  ['--in-interface', 'inInterface'],
  ['-o', 'outInterface'],
  ['--out-interface', 'outInterface'],
  ['-p', 'protocol'],
  ['--protocol', 'protocol'],
]);

const HEADER_LETTER: Readonly<Record<HeaderField, string>> = {
  source: '-s',
  destination: '-d',
  inInterface: '-i',
  outInterface: '-o',
  protocol: '-p',
};

interface MutableMatch {
  readonly module: string;
  readonly spec: ExtensionSpec;
  readonly options: RuleOption[];
}

export function parseRuleWords(words: readonly string[]): Checked<RuleSpec> {
  const header: Partial<Record<HeaderField, NegatableValue>> = {};
  const matches: MutableMatch[] = [];
  let target: { name: string; goto: boolean; spec: ExtensionSpec | undefined; options: RuleOption[] } | undefined;
  let negated = false;

  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    const next = (): string | undefined => words[i + 1];
    if (word === '!') {
      if (negated) return fail('multiple consecutive ! not allowed');
      negated = true;
      continue;
    }
    const field = HEADER_OPTIONS.get(word);
    if (field !== undefined) {
      const value = next();
      if (value === undefined) return fail(`option "${word}" requires an argument`);
      if (header[field] !== undefined) return fail(`multiple ${HEADER_LETTER[field]} flags not allowed`);
      header[field] = { value, negated };
      negated = false;
      i++;
      continue;
    }
    if (word === '-m' || word === '--match') {
      if (negated) return fail('unexpected ! flag before --match');
      const name = next();
      if (name === undefined) return fail(`option "${word}" requires an argument`);
      const spec = MATCH_EXTENSIONS.get(name);
      if (spec === undefined) return fail(`Couldn't load match \`${name}':No such file or directory`);
      matches.push({ module: name, spec, options: [] });
      i++;
      continue;
    }
    if (word === '-j' || word === '--jump' || word === '-g' || word === '--goto') {
      if (negated) return fail(`cannot have ! before ${word}`);
      const name = next();
      if (name === undefined) return fail(`option "${word}" requires an argument`);
      if (target !== undefined) return fail('multiple -j flags not allowed');
      const isGoto = word === '-g' || word === '--goto';
      target = { name, goto: isGoto, spec: isGoto ? undefined : TARGET_EXTENSIONS.get(name), options: [] };
      i++;
      continue;
    }
    if (!word.startsWith('--')) return fail(`Bad argument \`${word}'`);

    // An extension option: the target first, then the latest match that knows it.
    let owner: { spec: ExtensionSpec; options: RuleOption[] } | undefined;
    if (target?.spec !== undefined && findOption(target.spec, word) !== undefined) {
      owner = { spec: target.spec, options: target.options };
    } else {
      owner = matches.findLast((m) => findOption(m.spec, word) !== undefined);
    }
    if (owner === undefined) {
      // The implicit match is the one named after the protocol (`-p 6` loads `-m tcp`), if any.
      const protocol = header.protocol?.value.toLowerCase();
      const implicit = protocol === undefined ? undefined : PROTOCOL_NAMES.get(protocol);
      const spec = implicit === undefined ? undefined : MATCH_EXTENSIONS.get(implicit);
      if (implicit !== undefined && spec !== undefined && findOption(spec, word) !== undefined) {
        const loaded: MutableMatch = { module: implicit, spec, options: [] };
        matches.push(loaded);
        owner = loaded;
      }
    }
    const optionSpec = owner === undefined ? undefined : findOption(owner.spec, word);
    if (owner === undefined || optionSpec === undefined) return fail(`unknown option "${word}"`);
    if (negated && !optionSpec.negatable) return fail(`${owner.spec.name}: option "${word}" cannot be inverted.`);
    const args: string[] = [];
    if (optionSpec.takesArgument) {
      const value = next();
      if (value === undefined) return fail(`option "${word}" requires an argument`);
      args.push(value);
      i++;
    }
    owner.options.push({ name: optionSpec.name, negated, args });
    negated = false;
  }
  if (negated) return fail('no argument following "!"');

  const ruleMatches: RuleMatch[] = matches.map((m) => ({ module: m.module, options: m.options }));
  const spec: { -readonly [K in keyof RuleSpec]: RuleSpec[K] } = { matches: ruleMatches };
  for (const key of Object.keys(header) as HeaderField[]) {
    const value = header[key];
    if (value !== undefined) spec[key] = value;
  }
  if (target !== undefined) {
    const ruleTarget: RuleTarget = { name: target.name, goto: target.goto, options: target.options };
    spec.target = ruleTarget;
  }
  return okValue(spec);
}
