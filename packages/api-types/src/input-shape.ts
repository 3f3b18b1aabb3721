// Helpers for the shape checks that public entry points run once, at their edge, on input a
// JavaScript caller or unchecked JSON can pass (a wrong shape becomes an error value naming the
// part, never a TypeError from deep inside). Each package writes its own checks and its own
// tagged error; the wording of the parts they share is here, so that it is one wording.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as an error message names it: `null`, `an array`, `the string "x"`, `number 3`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** What a zod schema offers for a check: its safeParse. */
export interface ShapeSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** `<where>.<path>: <zod's message>` for the first problem zod finds, or undefined when `value` fits. */
export function schemaProblem(schema: ShapeSchema, value: unknown, where: string): string | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.map(String).join('.')}`;
  return `${where}${path}: ${issue?.message ?? 'wrong shape'}`;
}

/** The first problem of a list's items (`<where>[i]…`), or `expected an array` when it is none. */
export function listProblem(value: unknown, where: string, each: (item: unknown, at: string) => string | undefined): string | undefined {
  if (!Array.isArray(value)) return `${where}: expected an array, got ${describeValue(value)}`;
  for (const [i, item] of (value as unknown[]).entries()) {
    const problem = each(item, `${where}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
