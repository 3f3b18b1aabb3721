// The bodies both readers parse the same way: a set's or map's properties, and elements.
// upstream: sigs.k8s.io/knftables objects.go (Set.writeOperation, Element.writeOperation and
// their parse functions, v0.0.18, the version Kubernetes v1.33's go.mod requires).

import type { NftElementSpec, NftSetSpec } from '../model/types.js';
import { joinWords, type Word } from './words.js';

/** A set's or map's spec from its body statements (`type …`, `flags …`, …), or why not. */
export function setSpecFrom(name: string, statements: readonly (readonly Word[])[]): NftSetSpec | string {
  let type: string | undefined;
  let typeOf: string | undefined;
  let flags: string[] | undefined;
  let timeout: string | undefined;
  let comment: string | undefined;
  for (const statement of statements) {
    const [head, ...rest] = statement;
    if (head === undefined) continue;
    const value = joinWords(rest);
    switch (head.quoted ? '' : head.text) {
      case 'type':
        type = value;
        break;
      case 'typeof':
        typeOf = value;
        break;
      case 'flags':
        // knftables writes `flags dynamic,timeout`; nft lists `flags dynamic,timeout` too.
        flags = rest
          .map((w) => w.text)
          .join('')
          .split(',')
          .filter((f) => f !== '');
        break;
      case 'timeout':
        timeout = value;
        break;
      case 'comment': {
        const [text] = rest;
        if (text === undefined || !text.quoted || rest.length !== 1) return `${name}: expected comment "..."`;
        comment = text.text;
        break;
      }
      case 'elements':
        // Only the ruleset listing has these; its reader takes them out first.
        return `${name}: elements in a set declaration`;
      default:
        return `${name}: unsupported set property ${joinWords(statement)}`;
    }
  }
  if (type === undefined && typeOf === undefined) return `${name}: a set needs a type or a typeof`;
  if (type !== undefined && typeOf !== undefined) return `${name}: a set has a type or a typeof, not both`;
  return {
    name,
    ...(type === undefined ? {} : { type }),
    ...(typeOf === undefined ? {} : { typeOf }),
    ...(flags === undefined ? {} : { flags }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(comment === undefined ? {} : { comment }),
  };
}

/**
 * The elements of a body (`k1 . k2 [comment "c"] [: value]`, separated by `,`): the key and the
 * value split at their ` . ` parts, as knftables' Element.parse splits them (a verdict is one
 * part: `goto service-…`), and the comment. `set` is the set's name.
 */
export function elementsFrom(set: string, body: readonly Word[]): NftElementSpec[] | string {
  const out: NftElementSpec[] = [];
  let current: Word[] = [];
  const flush = (): string | undefined => {
    if (current.length === 0) return `${set}: empty element`;
    const element = elementFrom(set, current);
    if (typeof element === 'string') return element;
    out.push(element);
    current = [];
    return undefined;
  };
  for (const w of body) {
    if (!w.quoted && w.text === ',') {
      const bad = flush();
      if (bad !== undefined) return bad;
      continue;
    }
    current.push(w);
  }
  if (current.length > 0) {
    const bad = flush();
    if (bad !== undefined) return bad;
  }
  return out;
}

function elementFrom(set: string, ws: readonly Word[]): NftElementSpec | string {
  const key: string[] = [];
  let value: string[] | undefined;
  let part: string[] = [];
  let comment: string | undefined;
  // The key's and the value's parts are separated by ` . ` (knftables joins and splits them so).
  const endPart = (what: string): string | undefined => {
    if (part.length === 0) return `${set}: empty part in an element's ${what}`;
    (value ?? key).push(part.join(' '));
    part = [];
    return undefined;
  };
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (w === undefined) break;
    if (value === undefined && !w.quoted && w.text === 'comment') {
      const text = ws[i + 1];
      if (text === undefined || !text.quoted) return `${set}: expected comment "..."`;
      comment = text.text;
      i++;
      continue;
    }
    if (w.quoted) return `${set}: unexpected string in an element`;
    if (w.text === '.') {
      const bad = endPart(value === undefined ? 'key' : 'value');
      if (bad !== undefined) return bad;
      continue;
    }
    if (w.text === ':' && value === undefined) {
      const bad = endPart('key');
      if (bad !== undefined) return bad;
      value = [];
      continue;
    }
    part.push(w.text);
  }
  const bad = endPart(value === undefined ? 'key' : 'value');
  if (bad !== undefined) return bad;
  return {
    set,
    key,
    ...(value === undefined ? {} : { value }),
    ...(comment === undefined ? {} : { comment }),
  };
}
