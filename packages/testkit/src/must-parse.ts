// Addresses and blocks written as text in test set-up. A typo fails the test at once, with the
// parser's own error, instead of reaching the code under test as a result to unwrap.
import { parseCIDRStrict, parseIP, type CIDR, type IP } from '@kubesvc/api-types';

/** The address parseIP reads from `text`; throws its error when there is none. */
export function mustParseIP(text: string): IP {
  const parsed = parseIP(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

/** The block parseCIDRStrict reads from `text` (host bits are refused); throws its error otherwise. */
export function mustParseCIDR(text: string): CIDR {
  const parsed = parseCIDRStrict(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
