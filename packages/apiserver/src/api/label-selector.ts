// The label selector language of `?labelSelector=`: a lexer and a recursive-descent parser with
// upstream's grammar, operators, value sets and error texts, and the matcher.
// upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser, Parse,
//           NewRequirement, Requirement.Matches), staging/src/k8s.io/apimachinery/pkg/selection
import { err, invalid, fieldPath, isQualifiedName, isValidLabelValue, ok, renderAggregate, renderFieldError, type FieldError, type Result, type TaggedError } from '@kubesvc/api-types';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and without repeats, as upstream's sets.String gives them. */
  readonly values: readonly string[];
}

/** A label selector that does not parse (upstream's text). */
export type ErrLabelSelector = TaggedError<'ErrLabelSelector'>;

export type LabelSelectorResult = Result<readonly LabelRequirement[], ErrLabelSelector>;

const enum Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const LITERALS: ReadonlyMap<string, Tok> = new Map([
  [')', Tok.ClosedPar],
  [',', Tok.Comma],
  ['!', Tok.DoesNotExist],
  ['==', Tok.DoubleEquals],
  ['=', Tok.Equals],
  ['>', Tok.GreaterThan],
  ['in', Tok.In],
  ['<', Tok.LessThan],
  ['!=', Tok.NotEquals],
  ['notin', Tok.NotIn],
  ['(', Tok.OpenPar],
]);

/** upstream binaryOperators, as the "expected:" text lists them. */
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

interface Item {
  readonly tok: Tok;
  readonly lit: string;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecial(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';
}

/** Go strings are bytes; the lexer reads bytes, so the input is walked as UTF-8 bytes. */
function lex(input: string): Item[] {
  const bytes = Buffer.from(input, 'utf8');
  const s = bytes.toString('latin1');
  let pos = 0;
  const read = (): string => (pos < s.length ? (s[pos++] ?? '') : '');
  const items: Item[] = [];
  const text = (latin: string) => Buffer.from(latin, 'latin1').toString('utf8');
  for (;;) {
    let ch = read();
    while (ch !== '' && isWhitespace(ch)) ch = read();
    if (ch === '') {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    pos--;
    if (isSpecial(ch)) {
      let buffer = '';
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecial(c)) {
          buffer += c;
          const tok = LITERALS.get(buffer);
          if (tok !== undefined) last = { tok, lit: buffer };
          else if (last !== undefined) {
            pos--;
            break;
          }
        } else {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${text(buffer)}'` });
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecial(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      const word = text(buffer);
      items.push({ tok: LITERALS.get(word) ?? Tok.Identifier, lit: word });
    }
  }
}

class ParseError extends Error {}

/** field.Path(nil).String(): the parser has no path, so its errors name `<nil>`. */
const NIL_PATH = '<nil>';

function keyError(key: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length === 0 ? undefined : { type: 'FieldValueInvalid', field: NIL_PATH, badValue: key, detail: errs.join('; ') };
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly Item[]) {}

  private at(i: number, values: boolean): Item {
    const item = this.items[i] ?? { tok: Tok.End, lit: '' };
    if (values && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }

  private lookahead(values: boolean): Item {
    return this.at(this.position, values);
  }

  private consume(values: boolean): Item {
    return this.at(this.position++, values);
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            throw new ParseError(`unable to parse requirement: ${(e as Error).message}`);
          }
          out.push(r);
          const next = this.consume(true);
          switch (next.tok) {
            case Tok.End:
              return out;
            case Tok.Comma: {
              const after = this.lookahead(true);
              if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) throw new ParseError(`found '${after.lit}', expected: identifier after ','`);
              break;
            }
            default:
              throw new ParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
          }
          break;
        }
        case Tok.End:
          return out;
        default:
          throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let { tok, lit } = this.consume(true);
    if (tok === Tok.DoesNotExist) {
      operator = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== Tok.Identifier) throw new Error(`found '${lit}', expected: identifier`);
    const bad = keyError(lit);
    if (bad !== undefined) throw new Error(renderFieldError(bad));
    const key = lit;
    const next = this.lookahead(true).tok;
    if (next === Tok.End || next === Tok.Comma) {
      operator = operator === '!' ? '!' : 'exists';
    }
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.consume(false);
    let binary: LabelOperator;
    switch (op.tok) {
      case Tok.In:
        binary = 'in';
        break;
      case Tok.Equals:
        binary = '=';
        break;
      case Tok.DoubleEquals:
        binary = '==';
        break;
      case Tok.GreaterThan:
        binary = 'gt';
        break;
      case Tok.LessThan:
        binary = 'lt';
        break;
      case Tok.NotIn:
        binary = 'notin';
        break;
      case Tok.NotEquals:
        binary = '!=';
        break;
      default:
        throw new Error(`found '${op.lit}', expected: ${BINARY_OPERATORS}`);
    }
    const values = binary === 'in' || binary === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, binary, [...values].sort());
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume(true).tok !== Tok.ClosedPar) throw new Error(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume(true);
        return new Set(['']);
      default:
        throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      switch (tok) {
        case Tok.Identifier: {
          s.add(lit);
          const next = this.lookahead(true);
          if (next.tok === Tok.Comma) continue;
          if (next.tok === Tok.ClosedPar) return s;
          throw new Error(`found '${next.lit}', expected: ',' or ')'`);
        }
        case Tok.Comma: {
          if (s.size === 0) s.add('');
          const next = this.lookahead(true).tok;
          if (next === Tok.ClosedPar) {
            s.add('');
            return s;
          }
          if (next === Tok.Comma) s.add('');
          continue;
        }
        default:
          throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === Tok.End || next === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** NewRequirement's checks (the key was checked by the parser); errors as an aggregate. */
function newRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const errs: FieldError[] = [];
  const valuesPath = fieldPath('values');
  const bad = keyError(key);
  if (bad !== undefined) errs.push({ ...bad, field: 'key' });
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid(valuesPath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?[0-9]+$/.test(v) || !fitsInt64(v)) errs.push(invalid(valuesPath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      break;
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(invalid(valuesPath.index(i).key(key), v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new Error(renderAggregate(errs));
  return { key, operator, values };
}

function fitsInt64(v: string): boolean {
  const n = BigInt(v);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/** Parses a label selector; an empty text selects everything. Requirements come sorted by key. */
export function parseLabelSelector(text: string): LabelSelectorResult {
  try {
    const requirements = new Parser(lex(text)).parse();
    // upstream sorts by key (sort.Sort, not stable; keys are compared only).
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return ok(requirements);
  } catch (e) {
    if (e instanceof ParseError || e instanceof Error) return err({ _tag: 'ErrLabelSelector', message: e.message });
    throw e;
  }
}

function parseInt64(v: string): bigint | undefined {
  return /^[+-]?[0-9]+$/.test(v) && fitsInt64(v) ? BigInt(v) : undefined;
}

/** Requirement.Matches for one requirement. */
export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined) return false;
      const lhs = parseInt64(value);
      const rhs = r.values.length === 1 ? parseInt64(r.values[0] ?? '') : undefined;
      if (lhs === undefined || rhs === undefined) return false;
      return r.operator === 'gt' ? lhs > rhs : lhs < rhs;
    }
  }
}

/** Whether every requirement matches (an empty selector matches everything). */
export function labelsMatch(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  const set = labels ?? {};
  return requirements.every((r) => requirementMatches(r, set));
}

/** The selector as upstream's String() prints it. */
export function formatLabelSelector(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map((r) => {
      switch (r.operator) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.values.join(',')}`;
        case 'lt':
          return `${r.key}<${r.values.join(',')}`;
        default:
          return `${r.key}${r.operator}${r.values.join(',')}`;
      }
    })
    .join(',');
}

