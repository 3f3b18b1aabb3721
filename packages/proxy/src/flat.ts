// String helpers the proxy model and its backends share.

/**
 * The same string, flattened: V8 flattens a rope when a character is read. A string built by
 * concatenation that is then hashed, compared or printed many times is flattened once, here,
 * instead of walked as a rope each time.
 */
export function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}
