// How iptables-save prints a free-text argument (the comment): bare when it is non-empty
// and only [A-Za-z0-9_-], otherwise in double quotes with `"`, `\` and `'` backslash-escaped.
// iptables-restore reads either form back to the same text (see tokenize.ts).
// upstream: iptables libxtables/xtables.c (xtables_save_string).

const BARE = /^[A-Za-z0-9_-]+$/;

export function quoteSaveString(value: string): string {
  if (BARE.test(value)) return value;
  return `"${value.replace(/["\\']/g, (c) => `\\${c}`)}"`;
}
