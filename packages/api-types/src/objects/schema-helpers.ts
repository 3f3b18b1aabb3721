// Building blocks shared by the object schemas.
//
// The schemas check structure the way the apiserver's JSON decoder does (a port must be a
// number, a label value a string); they do not check meaning. A Service of type "Foo"
// decodes, and validation then reports `Unsupported value: "Foo"` with upstream's text.
// That is why enumerations are open strings at run time while their TypeScript types
// still name the known values.
//
// Objects are loose: fields this project does not model (a Pod's containers, managedFields,
// fields of newer Kubernetes versions) are kept as they came, so a cluster dump prints
// back unchanged.
import { z } from 'zod';

/** A string enumeration that decodes any string, typed with its known values. */
export function openEnum<const T extends readonly string[]>(
  _known: T,
): z.ZodType<T[number] | (string & {})> {
  return z.string() as z.ZodType<T[number] | (string & {})>;
}

/** Go's int32: the decoder refuses fractions and values outside the 32-bit range. */
export const int32 = z.number().int().min(-2147483648).max(2147483647);

/** Go's int64 as JSON numbers carry it (exact up to 2^53). */
export const int64 = z.number().int();

/** A metav1.Time: RFC 3339 text, or null when the object was never stored. */
export const timestamp = z.string().nullable();

/** An IntOrString (targetPort): a JSON number or a JSON string. */
export const intOrString = z.union([int32, z.string()]);

export const stringMap = z.record(z.string(), z.string());
