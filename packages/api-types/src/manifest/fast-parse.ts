// A quicker structural check for objects that pass their kind's schema: the zod schema's own
// shape, read once and turned into plain functions that either give back exactly what zod's
// safeParse gives on success (the same keys, in the same order, the same values) or decline.
// A declined value goes to zod, so every refusal and its message stays zod's: this only ever
// takes the path of a value zod would accept.
//
// Why not zod on every object: a Service create on the API spent about 35 µs in zod's parse of
// a 1 KB Service (2026-12-03, AMD EPYC, Node 20), about as much as its validation; these
// functions take about 5 µs (docs/architecture.md, "Decoding objects").
//
// zod's output, which the functions reproduce (zod 4, core/schemas.js):
// - an object: the shape's keys in the shape's order, those present in the input (`key in
//   input`) each with its parsed value; then (a loose object) the other keys in the input's
//   order, each value as it came (the same reference: `unknown` returns its input);
// - a record: the input's own keys in order, each value parsed; an array: a new array;
// - optional, nullable, union (the first option that passes), literal, string, boolean, and a
//   number with the integer and bound checks the schemas use.
// Anything else in a schema (a default, a transform, a check it does not know) makes the whole
// kind decline, as does a key `__proto__` in a value (zod drops it; the functions leave that
// to zod).
import type { z } from 'zod';

/** What a check gives for a value zod would refuse, or one it leaves to zod. */
export const DECLINE: unique symbol = Symbol('decline');

type Check = (value: unknown) => unknown;

/** zod's internal definition, as far as these functions read it. */
interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: { readonly check: string; readonly format?: string; readonly value?: unknown; readonly inclusive?: boolean } } }[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly values?: readonly unknown[];
  /** A string format (z.base64(), z.email(): the schema is its own check), a pattern, coercion: none known here. */
  readonly format?: unknown;
  readonly pattern?: unknown;
  readonly coerce?: unknown;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

class Unsupported extends Error {}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function numberCheck(def: Def): Check {
  let integer = false;
  let min = -Infinity;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'number_format' && d.format === 'safeint') integer = true;
    else if (d.check === 'greater_than' && d.inclusive === true && typeof d.value === 'number') min = Math.max(min, d.value);
    else if (d.check === 'less_than' && d.inclusive === true && typeof d.value === 'number') max = Math.min(max, d.value);
    else throw new Unsupported(`number check ${d.check}`);
  }
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return DECLINE;
    if (integer && !Number.isSafeInteger(value)) return DECLINE;
    return value >= min && value <= max ? value : DECLINE;
  };
}

function objectCheck(def: Def, compile: (schema: z.ZodType) => { readonly check: Check; readonly optional: boolean }): Check {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  for (const key of keys) if (key in Object.prototype || key === '__proto__') throw new Unsupported(`shape key ${key}`);
  const compiled = keys.map((key) => compile(shape[key] as z.ZodType));
  const checks = compiled.map((c) => c.check);
  const optional = compiled.map((c) => c.optional);
  const known = new Set(keys);
  const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
  if (catchall !== undefined && catchall !== 'unknown' && catchall !== 'never') throw new Unsupported(`catchall ${catchall}`);
  const loose = catchall === 'unknown';
  return (value) => {
    if (!isPlainRecord(value)) return DECLINE;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const v = value[key];
      if (v === undefined && !(key in value)) {
        if (optional[i] === true) continue;
        return DECLINE;
      }
      const parsed = (checks[i] as Check)(v);
      if (parsed === DECLINE) return DECLINE;
      out[key] = parsed;
    }
    // The other keys, in the input's order.
    for (const key in value) {
      if (known.has(key)) continue;
      if (key === '__proto__' || !loose) return DECLINE;
      out[key] = value[key];
    }
    return out;
  };
}

/** The checks of one schema, and whether an object may leave its key out. */
function compileSchema(schema: z.ZodType): { readonly check: Check; readonly optional: boolean } {
  const def = defOf(schema);
  if (def.type !== 'number' && (def.checks?.length ?? 0) > 0) throw new Unsupported(`checks on ${def.type}`);
  if (def.format !== undefined || def.pattern !== undefined || (def.coerce !== undefined && def.coerce !== false)) throw new Unsupported(`a ${def.type} format`);
  switch (def.type) {
    case 'string':
      return { check: (v) => (typeof v === 'string' ? v : DECLINE), optional: false };
    case 'boolean':
      return { check: (v) => (typeof v === 'boolean' ? v : DECLINE), optional: false };
    case 'number':
      return { check: numberCheck(def), optional: false };
    case 'unknown':
      return { check: (v) => v, optional: true };
    case 'literal': {
      const values = def.values ?? [];
      return { check: (v) => (values.includes(v) ? v : DECLINE), optional: false };
    }
    case 'optional': {
      const inner = compileSchema(def.innerType as z.ZodType).check;
      return { check: (v) => (v === undefined ? undefined : inner(v)), optional: true };
    }
    case 'nullable': {
      const inner = compileSchema(def.innerType as z.ZodType);
      return { check: (v) => (v === null ? null : inner.check(v)), optional: inner.optional };
    }
    case 'array': {
      const element = compileSchema(def.element as z.ZodType).check;
      return {
        check: (v) => {
          if (!Array.isArray(v)) return DECLINE;
          const out = new Array<unknown>(v.length);
          for (let i = 0; i < v.length; i++) {
            const parsed = element(v[i]);
            if (parsed === DECLINE) return DECLINE;
            out[i] = parsed;
          }
          return out;
        },
        optional: false,
      };
    }
    case 'record': {
      const keyDef = defOf(def.keyType as z.ZodType);
      if (keyDef.type !== 'string' || (keyDef.checks?.length ?? 0) > 0) throw new Unsupported('record key');
      const item = compileSchema(def.valueType as z.ZodType).check;
      return {
        check: (v) => {
          if (!isPlainRecord(v)) return DECLINE;
          const out: Record<string, unknown> = {};
          for (const key of Object.keys(v)) {
            if (key === '__proto__') return DECLINE;
            const parsed = item(v[key]);
            if (parsed === DECLINE) return DECLINE;
            out[key] = parsed;
          }
          // A symbol or non-enumerable key cannot come from JSON; leave such a value to zod.
          return Reflect.ownKeys(v).length === Object.keys(v).length ? out : DECLINE;
        },
        optional: false,
      };
    }
    case 'union': {
      const options = (def.options ?? []).map((o) => compileSchema(o));
      return {
        check: (v) => {
          for (const o of options) {
            const parsed = o.check(v);
            if (parsed !== DECLINE) return parsed;
          }
          return DECLINE;
        },
        optional: options.some((o) => o.optional),
      };
    }
    case 'object':
      return { check: objectCheck(def, compileSchema), optional: false };
    default:
      throw new Unsupported(def.type);
  }
}

/**
 * The quick check of `schema`: a function that gives zod's parsed value for a value it
 * accepts, or DECLINE (then ask zod); undefined when the schema uses what it does not know.
 */
export function fastParser(schema: z.ZodType): ((value: unknown) => unknown) | undefined {
  try {
    return compileSchema(schema).check;
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}
