// A rule's text read into the statements the tracer evaluates, in order: matches (which end
// the rule when they fail), lookups, side effects (a mark, an affinity update) and verdicts.
// It reads the words kube-proxy writes (v1.33's proxier.go, through knftables) and the words
// nft lists for them (`meta mark set meta mark | 0x00004000`, a one-address anonymous set
// without braces); anything else is an error naming the words, never a guess.
// upstream: pkg/proxy/nftables/helpers_test.go (nftablesTracer.runChain: the same rule pieces,
// read by regular expressions); the nft(8) manual for what each statement does.

import { parseAddress } from '@kubesvc/proxy';
import { words, type Word } from '../read/words.js';

/** A value a packet has: its addresses, its protocol, its destination port. */
export type Field = 'saddr' | 'daddr' | 'l4proto' | 'dport';

/** A verdict, in a rule or as a map's value. */
export type Verdict =
  | { readonly kind: 'jump' | 'goto'; readonly chain: string }
  | { readonly kind: 'accept' | 'drop' | 'reject' | 'return' | 'continue' };

/** A literal to compare a field with: an address or prefix, a protocol number, a port. */
export type Literal =
  | { readonly kind: 'address'; readonly value: bigint; readonly mask: bigint }
  | { readonly kind: 'number'; readonly value: number };

export type Statement =
  | { readonly kind: 'compare'; readonly field: Field; readonly negated: boolean; readonly any: readonly Literal[] }
  | { readonly kind: 'lookup'; readonly fields: readonly Field[]; readonly set: string; readonly negated: boolean }
  | { readonly kind: 'vmap'; readonly fields: readonly Field[]; readonly map: string }
  | { readonly kind: 'inline-vmap'; readonly fields: readonly Field[]; readonly entries: readonly { readonly key: readonly Literal[]; readonly verdict: Verdict }[] }
  | { readonly kind: 'fib-local'; readonly field: 'saddr' | 'daddr'; readonly negated: boolean }
  | { readonly kind: 'ct-state'; readonly states: readonly string[]; readonly negated: boolean }
  | { readonly kind: 'mark-match'; readonly mask: number; readonly negated: boolean; readonly value: number }
  | { readonly kind: 'mark-set'; readonly op: 'or' | 'xor' | 'and' | 'set'; readonly value: number }
  | { readonly kind: 'numgen'; readonly modulus: number; readonly entries: ReadonlyMap<number, Verdict> }
  | { readonly kind: 'update'; readonly set: string; readonly fields: readonly Field[] }
  | { readonly kind: 'dnat'; readonly address: string; readonly port?: number }
  | { readonly kind: 'masquerade' }
  | { readonly kind: 'counter' }
  | { readonly kind: 'verdict'; readonly verdict: Verdict };

const PROTOCOLS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17, icmpv6: 58, sctp: 132 };

/** A protocol name or number, as a number. */
export function protocolNumber(text: string): number | undefined {
  const known = PROTOCOLS[text];
  if (known !== undefined) return known;
  return /^\d+$/.test(text) && Number(text) <= 255 ? Number(text) : undefined;
}

/** An address or prefix of `family` (4 or 6) as value and mask. */
export function addressLiteral(text: string, family: 4 | 6): Literal | undefined {
  const slash = text.indexOf('/');
  const bits = family === 4 ? 32 : 128;
  const host = slash === -1 ? text : text.slice(0, slash);
  const prefix = slash === -1 ? bits : Number(text.slice(slash + 1));
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits || (slash !== -1 && !/^\d+$/.test(text.slice(slash + 1)))) return undefined;
  const value = parseAddress(host, family);
  if (value === undefined) return undefined;
  const all = (1n << BigInt(bits)) - 1n;
  const mask = all ^ ((1n << BigInt(bits - prefix)) - 1n);
  return { kind: 'address', value: value & mask, mask };
}

/** A literal for a field, read from its text. */
export function literalFor(field: Field, text: string, family: 4 | 6): Literal | undefined {
  if (field === 'saddr' || field === 'daddr') return addressLiteral(text, family);
  if (field === 'l4proto') {
    const n = protocolNumber(text);
    return n === undefined ? undefined : { kind: 'number', value: n };
  }
  return /^\d+$/.test(text) && Number(text) <= 65535 ? { kind: 'number', value: Number(text) } : undefined;
}

function numberText(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text, 16) >>> 0;
  if (/^\d+$/.test(text)) return Number(text) >>> 0;
  return undefined;
}

class Reader {
  i = 0;
  constructor(readonly ws: readonly Word[]) {}
  peek(k = 0): string | undefined {
    const w = this.ws[this.i + k];
    return w === undefined ? undefined : w.quoted ? `"${w.text}"` : w.text;
  }
  next(): string | undefined {
    const t = this.peek();
    this.i++;
    return t;
  }
  done(): boolean {
    return this.i >= this.ws.length;
  }
}

/** `ip daddr`, `meta l4proto`, `th dport`, ...: the field, and for `tcp dport` its protocol. */
function readField(r: Reader, family: 4 | 6): { field: Field; protocol?: number } | undefined {
  const a = r.peek();
  const b = r.peek(1);
  const ipWord = family === 4 ? 'ip' : 'ip6';
  if (a === ipWord && (b === 'saddr' || b === 'daddr')) {
    r.i += 2;
    return { field: b };
  }
  if ((a === 'meta' && b === 'l4proto') || (a === 'ip' && b === 'protocol' && family === 4) || (a === 'ip6' && b === 'nexthdr' && family === 6)) {
    r.i += 2;
    return { field: 'l4proto' };
  }
  if (a === 'th' && b === 'dport') {
    r.i += 2;
    return { field: 'dport' };
  }
  if ((a === 'tcp' || a === 'udp' || a === 'sctp') && b === 'dport') {
    r.i += 2;
    return { field: 'dport', protocol: PROTOCOLS[a] ?? 0 };
  }
  return undefined;
}

function readVerdict(r: Reader): Verdict | undefined {
  const a = r.peek();
  if (a === 'jump' || a === 'goto') {
    const chain = r.peek(1);
    if (chain === undefined || chain.startsWith('"')) return undefined;
    r.i += 2;
    return { kind: a, chain };
  }
  if (a === 'accept' || a === 'drop' || a === 'return' || a === 'continue') {
    r.i++;
    return { kind: a };
  }
  return undefined;
}

/** The words inside `{ ... }` starting at the reader's `{`, split at top-level commas. */
function readBraces(r: Reader): string[][] | undefined {
  if (r.peek() !== '{') return undefined;
  r.i++;
  const items: string[][] = [[]];
  for (;;) {
    const t = r.next();
    if (t === undefined) return undefined;
    if (t === '}') break;
    if (t === ',') {
      items.push([]);
      continue;
    }
    items[items.length - 1]?.push(t);
  }
  return items.filter((item) => item.length > 0);
}

function verdictOf(ws: readonly string[]): Verdict | undefined {
  const r = new Reader(ws.map((text) => ({ text, quoted: false })));
  const v = readVerdict(r);
  return v !== undefined && r.done() ? v : undefined;
}

/** The statements of a rule's text, or what could not be read. */
export function compileRule(text: string, family: 4 | 6): Statement[] | string {
  const ws = words(text);
  if (typeof ws === 'string') return ws;
  const r = new Reader(ws);
  const out: Statement[] = [];
  const fail = (what: string): string => `cannot evaluate ${JSON.stringify(what)} in ${JSON.stringify(text)}`;
  while (!r.done()) {
    const start = r.i;
    const rest = (): string => ws.slice(start).map((w) => w.text).join(' ');
    // Fields, possibly concatenated: a comparison, a set lookup or a verdict map.
    const first = readField(r, family);
    if (first !== undefined) {
      const fields: Field[] = [first.field];
      const implied: number[] = first.protocol === undefined ? [] : [first.protocol];
      while (r.peek() === '.') {
        r.i++;
        const f = readField(r, family);
        if (f === undefined) return fail(rest());
        fields.push(f.field);
        if (f.protocol !== undefined) implied.push(f.protocol);
      }
      // `tcp dport` carries its protocol: the packet must be tcp.
      for (const p of implied) out.push({ kind: 'compare', field: 'l4proto', negated: false, any: [{ kind: 'number', value: p }] });
      const op = r.peek();
      if (op === 'vmap') {
        r.i++;
        const target = r.peek();
        if (target?.startsWith('@') === true) {
          r.i++;
          out.push({ kind: 'vmap', fields, map: target.slice(1) });
          continue;
        }
        const items = readBraces(r);
        if (items === undefined) return fail(rest());
        const entries: { key: Literal[]; verdict: Verdict }[] = [];
        for (const item of items) {
          const colon = item.indexOf(':');
          const keyWords = item.slice(0, colon);
          const verdict = colon === -1 ? undefined : verdictOf(item.slice(colon + 1));
          const parts = keyWords.join(' ').split(' . ');
          if (verdict === undefined || parts.length !== fields.length) return fail(rest());
          const key: Literal[] = [];
          for (const [k, part] of parts.entries()) {
            const field = fields[k];
            const lit = field === undefined ? undefined : literalFor(field, part, family);
            if (lit === undefined) return fail(rest());
            key.push(lit);
          }
          entries.push({ key, verdict });
        }
        out.push({ kind: 'inline-vmap', fields, entries });
        continue;
      }
      if (op?.startsWith('@') === true) {
        r.i++;
        out.push({ kind: 'lookup', fields, set: op.slice(1), negated: false });
        continue;
      }
      if (fields.length !== 1) return fail(rest());
      const field = fields[0] ?? 'daddr';
      let negated = false;
      if (r.peek() === '!=') {
        negated = true;
        r.i++;
      } else if (r.peek() === '==') r.i++;
      const any: Literal[] = [];
      const items = r.peek() === '{' ? readBraces(r) : [[r.next() ?? '']];
      if (items === undefined) return fail(rest());
      for (const item of items) {
        const lit = item.length === 1 ? literalFor(field, item[0] ?? '', family) : undefined;
        if (lit === undefined) return fail(rest());
        any.push(lit);
      }
      if (any.length === 0) return fail(rest());
      out.push({ kind: 'compare', field, negated, any });
      continue;
    }
    const a = r.peek();
    const b = r.peek(1);
    if (a === 'fib' && (b === 'saddr' || b === 'daddr') && r.peek(2) === 'type') {
      r.i += 3;
      let negated = false;
      if (r.peek() === '!=') {
        negated = true;
        r.i++;
      }
      if (r.next() !== 'local') return fail(rest());
      out.push({ kind: 'fib-local', field: b, negated });
      continue;
    }
    if (a === 'ct' && b === 'state') {
      r.i += 2;
      let negated = false;
      if (r.peek() === '!=') {
        negated = true;
        r.i++;
      }
      const items = r.peek() === '{' ? readBraces(r) : [[r.next() ?? '']];
      const states = items?.map((item) => item.join(' ')) ?? [];
      if (states.length === 0 || states.some((s) => !['new', 'established', 'related', 'invalid', 'untracked'].includes(s))) return fail(rest());
      out.push({ kind: 'ct-state', states, negated });
      continue;
    }
    // mark and 0x4000 == 0 | meta mark & 0x00004000 == 0x00000000 | mark set mark or 0x4000
    if (a === 'mark' || (a === 'meta' && b === 'mark')) {
      r.i += a === 'mark' ? 1 : 2;
      if (r.peek() === 'set') {
        r.i++;
        const again = r.peek() === 'mark' ? 1 : r.peek() === 'meta' && r.peek(1) === 'mark' ? 2 : 0;
        if (again === 0) {
          const value = numberText(r.next());
          if (value === undefined) return fail(rest());
          out.push({ kind: 'mark-set', op: 'set', value });
          continue;
        }
        r.i += again;
        const opWord = r.next();
        const op = opWord === 'or' || opWord === '|' ? 'or' : opWord === 'xor' || opWord === '^' ? 'xor' : opWord === 'and' || opWord === '&' ? 'and' : undefined;
        const value = numberText(r.next());
        if (op === undefined || value === undefined) return fail(rest());
        out.push({ kind: 'mark-set', op, value });
        continue;
      }
      let mask = 0xffffffff;
      if (r.peek() === 'and' || r.peek() === '&') {
        r.i++;
        const m = numberText(r.next());
        if (m === undefined) return fail(rest());
        mask = m;
      }
      let negated = false;
      if (r.peek() === '!=') {
        negated = true;
        r.i++;
      } else if (r.peek() === '==') r.i++;
      const value = numberText(r.next());
      if (value === undefined) return fail(rest());
      out.push({ kind: 'mark-match', mask, negated, value });
      continue;
    }
    if (a === 'numgen' && b === 'random' && r.peek(2) === 'mod') {
      r.i += 3;
      const modulus = Number(r.next());
      if (!Number.isInteger(modulus) || modulus < 1) return fail(rest());
      if (r.next() !== 'vmap') return fail(rest());
      const items = readBraces(r);
      if (items === undefined) return fail(rest());
      const entries = new Map<number, Verdict>();
      for (const item of items) {
        const [k, colon, ...v] = item;
        const verdict = verdictOf(v);
        if (k === undefined || !/^\d+$/.test(k) || colon !== ':' || verdict === undefined) return fail(rest());
        entries.set(Number(k), verdict);
      }
      out.push({ kind: 'numgen', modulus, entries });
      continue;
    }
    if (a === 'update' && b?.startsWith('@') === true) {
      r.i += 2;
      if (r.next() !== '{') return fail(rest());
      const fields: Field[] = [];
      for (;;) {
        const f = readField(r, family);
        if (f === undefined) return fail(rest());
        fields.push(f.field);
        if (r.peek() === '.') {
          r.i++;
          continue;
        }
        break;
      }
      if (r.next() !== '}') return fail(rest());
      out.push({ kind: 'update', set: b.slice(1), fields });
      continue;
    }
    if (a === 'dnat') {
      r.i++;
      if (r.peek() === 'ip' || r.peek() === 'ip6') r.i++;
      if (r.next() !== 'to') return fail(rest());
      const to = r.next() ?? '';
      const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(to) ?? /^([^:]+)(?::(\d+))?$/.exec(to) ?? (family === 6 ? /^([0-9a-fA-F:.]+)()$/.exec(to) : null);
      if (m === null || parseAddress(m[1] ?? '', family) === undefined) return fail(rest());
      const port = m[2] === undefined || m[2] === '' ? undefined : Number(m[2]);
      if (port !== undefined && port > 65535) return fail(rest());
      out.push({ kind: 'dnat', address: m[1] ?? '', ...(port === undefined ? {} : { port }) });
      continue;
    }
    if (a === 'masquerade') {
      r.i++;
      // Port-mapping flags change the source port only.
      if (r.peek() !== undefined && /^(random|fully-random|persistent)(,(random|fully-random|persistent))*$/.test(r.peek() ?? '')) r.i++;
      out.push({ kind: 'masquerade' });
      continue;
    }
    if (a === 'reject') {
      r.i++;
      if (r.peek() === 'with') {
        // reject with icmp(x|v6) [type] <code> | tcp reset: how, not whether.
        r.i++;
        while (!r.done() && readVerdict(new Reader(ws.slice(r.i))) === undefined) r.i++;
      }
      out.push({ kind: 'verdict', verdict: { kind: 'reject' } });
      continue;
    }
    if (a === 'counter') {
      r.i++;
      if (r.peek() === 'packets') r.i += 4; // counter packets N bytes M (a live listing)
      out.push({ kind: 'counter' });
      continue;
    }
    const verdict = readVerdict(r);
    if (verdict !== undefined) {
      out.push({ kind: 'verdict', verdict });
      continue;
    }
    return fail(rest());
  }
  return out;
}
