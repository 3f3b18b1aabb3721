// The reader of `nft list ruleset` (or `nft list table ip kube-proxy`, with or without `-a`):
// a node's real ruleset, as nft 1.0.6 prints it, read into the NftTable of kube-proxy's table,
// so that the tracer can follow a packet through what a node actually runs.
//
//   table ip kube-proxy {
//   	comment "rules for kube-proxy"
//   	map service-ips {
//   		type ipv4_addr . inet_proto . inet_service : verdict
//   		comment "ClusterIP, ExternalIP and LoadBalancer IP traffic"
//   		elements = { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80,
//   			     172.30.0.42 . tcp . 80 : goto service-42NFTM6N-ns2/svc2/tcp/p80 }
//   	}
//   	chain filter-prerouting {
//   		type filter hook prerouting priority dstnat - 10; policy accept;
//   		ct state new jump firewall-check
//   	}
//   }
//
// Where nft's listing differs from the text knftables wrote (fixtures/*.nft against *.list):
// - a base chain's priority is printed by name where nft knows one (`dstnat - 10`, `srcnat`,
//   `dstnat`) and as a number elsewhere (`-110` on the forward hook): read back as the number
//   knftables writes (`-110`, `100`, `-100`), as knftables' ParsePriority computes it;
// - a set's timeout is printed as a duration (`3h`): read back in seconds (`10800s`);
// - nft adds `size 65535` to a dynamic set: left out (the model has no size; knftables does
//   not write one for kube-proxy);
// - elements come in nft's order (by key), not the order they were added; an element's
//   `timeout`/`expires` (an affinity entry on a live node) is left out, the entry kept;
// - rule texts are kept as nft prints them, which are not always knftables' words:
//   `meta mark set meta mark | 0x00004000` for `mark set mark or 0x4000`,
//   `meta mark & 0x00004000 == 0x00000000` for `mark and 0x4000 == 0`, a one-address anonymous
//   set without braces (`ip saddr != 203.0.113.0/25` for `ip saddr != { 203.0.113.0/25 }`), a
//   longer one sorted by address (`{ 10.96.0.0/12, 172.30.0.0/16 }` for
//   `{ 172.30.0.0/16,10.96.0.0/12 }`), `, 1 :` for ` , 1 :` in a numgen map; the tracer reads
//   both forms alike;
// - rules get handles: nft's own with `-a` (`# handle 7`), else 1, 2, ... in listing order.
// Other tables in the listing are skipped.
// upstream: the nftables CLI's listing (nft 1.0.6); knftables v0.0.18 util.go (ParsePriority).

import { ok } from '@kubesvc/api-types';
import type { NftChain, NftChainSpec, NftElement, NftFamily, NftRule, NftSet, NftSetSpec, NftTable } from '../model/types.js';
import { elementsFrom, setSpecFrom } from './objects.js';
import { parseError, words, type ParseResult, type Word } from './words.js';

export interface ParseListRulesetOptions {
  /** The table to read (default `kube-proxy`). */
  readonly table?: string;
  /** Its family; needed when the listing has the table in both `ip` and `ip6`. */
  readonly family?: NftFamily;
}

/** The priority names nft prints, with their numbers (knftables util.go numericPriorities). */
const PRIORITIES: Readonly<Record<string, number>> = { raw: -300, mangle: -150, dstnat: -100, filter: 0, security: 50, srcnat: 100 };

/** A chain priority as the number knftables writes (`dstnat - 10` is `-110`), or undefined. */
export function numericPriority(text: string): string | undefined {
  const compact = text.replace(/\s+/g, '');
  if (/^-?\d+$/.test(compact)) return String(Number(compact));
  const m = /^([a-z]+)([+-]\d+)?$/.exec(compact);
  if (m === null) return undefined;
  const base = PRIORITIES[m[1] ?? ''];
  if (base === undefined) return undefined;
  return String(base + Number(m[2] ?? '0'));
}

/** nft's duration (`3h`, `1d2h3m4s`, `500ms`) in whole seconds, written `10800s`; or undefined. */
export function durationSeconds(text: string): string | undefined {
  const re = /(\d+)(ms|d|h|m|s)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const n = Number(m[1]);
    const unit = m[2];
    total += unit === 'd' ? n * 86400 : unit === 'h' ? n * 3600 : unit === 'm' ? n * 60 : unit === 's' ? n : n / 1000;
    at = re.lastIndex;
  }
  if (at === 0 || at !== text.length) return undefined;
  return `${Math.floor(total)}s`;
}

interface Line {
  readonly n: number;
  readonly text: string;
  readonly handle?: number;
}

const HANDLE = /\s+# handle (\d+)$/;
const RULE_COMMENT = /^(.*?)\s+comment\s+("(?:[^"\\]|\\.)*")$/;

/** The kube-proxy table of an `nft list ruleset` text, or the first line that could not be read. */
export function parseListRuleset(text: string, options: ParseListRulesetOptions = {}): ParseResult<NftTable> {
  if (typeof text !== 'string') return parseError(1, `expected an nft listing, got ${typeof text}`);
  const wanted = options.table ?? 'kube-proxy';
  const lines: Line[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    let t = raw.trim();
    if (t === '') continue;
    const h = HANDLE.exec(t);
    if (h !== null) t = t.slice(0, h.index);
    lines.push({ n: i + 1, text: t, ...(h === null ? {} : { handle: Number(h[1]) }) });
  }
  let found: NftTable | undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line === undefined) break;
    const m = /^table\s+(\S+)\s+(\S+)\s*\{$/.exec(line.text);
    if (m === null) return parseError(line.n, `expected "table <family> <name> {", got ${JSON.stringify(line.text)}`);
    const [, family = '', name = ''] = m;
    const isWanted = name === wanted && (options.family === undefined || options.family === family);
    if (!isWanted) {
      const end = skipBlock(lines, i);
      if (typeof end === 'string') return parseError(line.n, end);
      i = end;
      continue;
    }
    if (family !== 'ip' && family !== 'ip6') return parseError(line.n, `unsupported family ${family} (expected ip or ip6)`);
    if (found !== undefined) return parseError(line.n, `table ${name} in both ip and ip6: say which family to read`);
    const table = readTable(lines, i, family, name);
    if (!table.ok) return table;
    found = table.value.table;
    i = table.value.next;
  }
  if (found === undefined) {
    return parseError(lines.length === 0 ? 1 : (lines[lines.length - 1]?.n ?? 1), `no table ${options.family ?? ''}${options.family === undefined ? '' : ' '}${wanted} in the listing`);
  }
  return ok(found);
}

/** The index after the block opened at `start` (counting braces outside strings). */
function skipBlock(lines: readonly Line[], start: number): number | string {
  let depth = 0;
  for (let i = start; i < lines.length; i++) {
    const ws = words(lines[i]?.text ?? '');
    if (typeof ws === 'string') return ws;
    for (const w of ws) {
      if (w.quoted) continue;
      if (w.text === '{') depth++;
      if (w.text === '}') depth--;
    }
    if (depth === 0) return i + 1;
  }
  return 'missing } at the end of the listing';
}

function readTable(lines: readonly Line[], start: number, family: NftFamily, name: string): ParseResult<{ table: NftTable; next: number }> {
  let comment: string | undefined;
  const chains = new Map<string, NftChain>();
  const sets = new Map<string, NftSet>();
  let handle = 0;
  let maxHandle = 0;
  let i = start + 1;
  for (;;) {
    const line = lines[i];
    if (line === undefined) return parseError(lines[lines.length - 1]?.n ?? 1, `missing } of table ${name}`);
    if (line.text === '}') break;
    const ws = words(line.text);
    if (typeof ws === 'string') return parseError(line.n, ws);
    const [head, objName, open] = ws;
    if (head?.text === 'comment' && head.quoted === false && objName?.quoted === true && ws.length === 2) {
      comment = objName.text;
      i++;
      continue;
    }
    if (head === undefined || objName === undefined || open?.text !== '{' || ws.length !== 3) {
      return parseError(line.n, `expected a chain, set or map of table ${name}, got ${JSON.stringify(line.text)}`);
    }
    if (head.text === 'chain') {
      if (chains.has(objName.text)) return parseError(line.n, `chain ${objName.text} twice`);
      const spec: { name: string; type?: string; hook?: string; priority?: string; comment?: string } = { name: objName.text };
      const rules: NftRule[] = [];
      i++;
      for (;;) {
        const l = lines[i];
        if (l === undefined) return parseError(line.n, `missing } of chain ${objName.text}`);
        i++;
        if (l.text === '}') break;
        if (l.text.startsWith('type ')) {
          const base = baseChain(objName.text, l.text);
          if (typeof base === 'string') return parseError(l.n, base);
          Object.assign(spec, base);
          continue;
        }
        const lw = words(l.text);
        if (typeof lw === 'string') return parseError(l.n, lw);
        if (lw.length === 2 && lw[0]?.text === 'comment' && lw[0].quoted === false && lw[1]?.quoted === true) {
          spec.comment = lw[1].text;
          continue;
        }
        const rule = ruleOf(l, () => ++handle);
        if (typeof rule === 'string') return parseError(l.n, rule);
        maxHandle = Math.max(maxHandle, rule.handle);
        rules.push(rule);
      }
      chains.set(objName.text, { spec: spec as NftChainSpec, rules });
      continue;
    }
    if (head.text === 'set' || head.text === 'map') {
      if (sets.has(objName.text)) return parseError(line.n, `set ${objName.text} twice`);
      const kind = head.text;
      const statements: Word[][] = [];
      let elements: NftElement[] = [];
      i++;
      for (;;) {
        const l = lines[i];
        if (l === undefined) return parseError(line.n, `missing } of ${kind} ${objName.text}`);
        if (l.text === '}') {
          i++;
          break;
        }
        if (l.text.startsWith('elements = {')) {
          // The elements run over lines until the brace that closes them.
          let body = l.text.slice('elements = '.length);
          let j = i;
          while (!closes(body)) {
            j++;
            const more = lines[j];
            if (more === undefined) return parseError(l.n, `missing } of the elements of ${objName.text}`);
            body += ` ${more.text}`;
          }
          const bw = words(body);
          if (typeof bw === 'string') return parseError(l.n, bw);
          const read = elementsFrom(objName.text, withoutExpiry(bw.slice(1, -1)));
          if (typeof read === 'string') return parseError(l.n, read);
          elements = read.map(({ key, value, comment: c }) => ({ key, ...(value === undefined ? {} : { value }), ...(c === undefined ? {} : { comment: c }) }));
          i = j + 1;
          continue;
        }
        const lw = words(l.text);
        if (typeof lw === 'string') return parseError(l.n, lw);
        const [property] = lw;
        // nft adds a size to dynamic sets; knftables writes none for kube-proxy's.
        if (property?.text !== 'size') statements.push(lw);
        i++;
      }
      const spec = setSpecFrom(objName.text, statements);
      if (typeof spec === 'string') return parseError(line.n, spec);
      const normalized = normalizeTimeout(spec);
      if (typeof normalized === 'string') return parseError(line.n, normalized);
      const isMap = (spec.type ?? spec.typeOf ?? '').includes(' : ');
      if (isMap !== (kind === 'map')) return parseError(line.n, `${objName.text}: a ${kind} ${kind === 'map' ? 'has a value type' : 'has no value type'}`);
      const byKey = new Map<string, NftElement>();
      for (const e of elements) byKey.set(e.key.join(' . '), e);
      sets.set(objName.text, { kind, spec: normalized, elements: byKey });
      continue;
    }
    return parseError(line.n, `unsupported object ${head.text} in table ${name} (kube-proxy writes chains, sets and maps)`);
  }
  return ok({ table: { family, name, spec: comment === undefined ? {} : { comment }, chains, sets, nextHandle: maxHandle + 1 }, next: i + 1 });
}

function closes(body: string): boolean {
  const ws = words(body);
  if (typeof ws === 'string') return false;
  let depth = 0;
  for (const w of ws) {
    if (w.quoted) continue;
    if (w.text === '{') depth++;
    if (w.text === '}') depth--;
  }
  return depth === 0;
}

/** An element's `timeout 3h` and `expires 2h59m` (a dynamic set's entry) are not its key. */
function withoutExpiry(ws: readonly Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (w === undefined) break;
    if (!w.quoted && (w.text === 'timeout' || w.text === 'expires')) {
      i++;
      continue;
    }
    out.push(w);
  }
  return out;
}

function normalizeTimeout(spec: NftSetSpec): NftSetSpec | string {
  if (spec.timeout === undefined) return spec;
  const seconds = durationSeconds(spec.timeout);
  if (seconds === undefined) return `${spec.name}: bad timeout ${spec.timeout}`;
  return { ...spec, timeout: seconds };
}

/** `type filter hook prerouting priority dstnat - 10; policy accept;` */
function baseChain(name: string, text: string): { type: string; hook: string; priority: string } | string {
  const m = /^type\s+(\S+)\s+hook\s+(\S+)\s+(?:device\s+\S+\s+)?priority\s+([^;]+);(.*)$/.exec(text);
  if (m === null) return `${name}: expected "type <type> hook <hook> priority <priority>;", got ${JSON.stringify(text)}`;
  const [, type = '', hook = '', priorityText = '', rest = ''] = m;
  if (/\bdevice\b/.test(text)) return `${name}: chains with a device are not supported`;
  const policy = /^\s*policy\s+(\S+?)\s*;\s*$/.exec(rest);
  if (rest.trim() !== '' && policy === null) return `${name}: unexpected ${rest.trim()}`;
  if (policy !== null && policy[1] !== 'accept') return `${name}: unsupported chain policy ${policy[1] ?? ''}`;
  const priority = numericPriority(priorityText);
  if (priority === undefined) return `${name}: unknown priority ${priorityText.trim()}`;
  return { type, hook, priority };
}

function ruleOf(line: Line, nextHandle: () => number): NftRule | string {
  let rule = line.text;
  let comment: string | undefined;
  const c = RULE_COMMENT.exec(rule);
  if (c !== null) {
    const ws = words(c[2] ?? '');
    const [w] = typeof ws === 'string' ? [] : ws;
    if (w === undefined || !w.quoted) return `bad comment in ${JSON.stringify(line.text)}`;
    rule = c[1] ?? '';
    comment = w.text;
  }
  if (typeof words(rule) === 'string') return `unterminated string in ${JSON.stringify(line.text)}`;
  const handle = line.handle ?? nextHandle();
  return { rule, ...(comment === undefined ? {} : { comment }), handle };
}

