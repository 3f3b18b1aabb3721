// Test-only (excluded from the library build): an arbitrary of iptables-restore texts that
// use every match and target the save view models, each spelled in the ways
// iptables-restore accepts and iptables-save normalises (option order, aliases, numeric and
// upper-case protocols, host bits, IPv6 spellings, hex/octal/decimal marks, probability
// texts, state lists in any order and case, quoted comments with escapes). Every text it
// produces is accepted by the real iptables-restore (the real-parser test checks a sample).

import { fc } from '@fast-check/vitest';
import { quoteSaveString } from './save-quote.js';

export type Family = 4 | 6;

const USER_CHAINS = ['KUBE-SVC-ABCDEFGHIJKLMNOP', 'KUBE-SEP-Q2RS3TUV4WXYZ567', 'KUBE-10', 'KUBE-9', 'B', 'a'];

function pick<T>(values: readonly T[]): fc.Arbitrary<T> {
  return fc.constantFrom(...values);
}

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const bang = fc.boolean().map((b) => (b ? ['!'] : []));

function ipv4Text(): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
}

function ipv6Text(): fc.Arbitrary<string> {
  const group = fc.oneof(fc.constant(0), fc.nat(0xffff));
  return fc
    .record({
      groups: fc.array(group, { minLength: 8, maxLength: 8 }),
      upper: fc.boolean(),
      pad: fc.boolean(),
      compress: fc.boolean(),
    })
    .map(({ groups, upper, pad, compress }) => {
      let parts = groups.map((g) => (pad ? g.toString(16).padStart(4, '0') : g.toString(16)));
      if (upper) parts = parts.map((p) => p.toUpperCase());
      if (!compress) return parts.join(':');
      const start = groups.indexOf(0);
      if (start === -1) return parts.join(':');
      let end = start;
      while (end < 8 && groups[end] === 0) end++;
      return `${parts.slice(0, start).join(':')}::${parts.slice(end).join(':')}`;
    });
}

export function addressText(family: Family): fc.Arbitrary<string> {
  return family === 4 ? ipv4Text() : ipv6Text();
}

/** `ADDR` or `ADDR/PREFIX`, host bits possibly set. */
function maskedText(family: Family): fc.Arbitrary<string> {
  return fc
    .tuple(addressText(family), maybe(fc.integer({ min: 0, max: family === 4 ? 32 : 128 })))
    .map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
}

/** `! ADDR/0` never matches; iptables-nft refuses it, so a negated address has a prefix of 1 or more. */
function negatableAddress(family: Family): fc.Arbitrary<readonly [readonly string[], string]> {
  return fc.tuple(bang, maskedText(family)).map(([n, a]) => [n, n.length > 0 && a.endsWith('/0') ? a.replace(/\/0$/, '/1') : a] as const);
}

function u32Text(): fc.Arbitrary<string> {
  return fc.tuple(fc.nat({ max: 0xffff_ffff }), pick(['hex', 'HEX', 'dec', 'oct'] as const)).map(([n, style]) => {
    switch (style) {
      case 'hex':
        return `0x${n.toString(16).padStart(8, '0')}`;
      case 'HEX':
        return `0X${n.toString(16).toUpperCase()}`;
      case 'dec':
        return `${n}`;
      case 'oct':
        return n === 0 ? '0' : `0${n.toString(8)}`;
    }
  });
}

function probabilityText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 1, max: 100_001 }).map((n) => (1 / n).toFixed(10)),
    fc.integer({ min: 1, max: 100 }).map((n) => (1 / n).toFixed(5)),
    fc.double({ min: 0, max: 1, noNaN: true }).map((p) => `${p}`),
    fc.nat({ max: 0x8000_0000 }).map((k) => `${k / 0x8000_0000}`),
    pick(['0', '1', '1.0', '0.5', '1e-3', '.25']),
  );
}

/** A port or range; never the full 0:65535 (negated, it never matches; the view refuses it). */
function portText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat(65535).map((p) => `${p}`),
    fc
      .tuple(fc.nat(65535), fc.nat(65535))
      .filter(([a, b]) => Math.min(a, b) > 0 || Math.max(a, b) < 65535)
      .map(([a, b]) => `${Math.min(a, b)}:${Math.max(a, b)}`),
    fc.integer({ min: 1, max: 65535 }).map((p) => `${p}:`),
    fc.integer({ min: 0, max: 65534 }).map((p) => `:${p}`),
  );
}

function commentText(): fc.Arbitrary<string> {
  const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 });
  // Short enough to stay under the kernel's 255 bytes, which it cuts without regard to UTF-8.
  const unicode = fc
    .string({ unit: 'grapheme', maxLength: 10 })
    .filter((s) => !/[\n\r]/.test(s) && !s.includes('\u0000') && new TextEncoder().encode(s).length <= 255);
  return fc.oneof(ascii, unicode, pick(['ns1/svc1:p80', 'ns1/svc1:p80 cluster IP', 'kubernetes forwarding rules', '']));
}

function shuffled<T>(items: readonly T[]): fc.Arbitrary<T[]> {
  return fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
}

function listText(values: readonly string[]): fc.Arbitrary<string> {
  return fc
    .shuffledSubarray([...values], { minLength: 1 })
    .chain((chosen) => fc.tuple(...chosen.map((v) => pick([v, v.toLowerCase()]))))
    .map((vs) => vs.join(','));
}

type Words = readonly string[];

interface RuleContext {
  readonly family: Family;
  readonly table: 'filter' | 'nat';
  /** A built-in chain of nat: no NAT targets (hook restrictions), no jumps, no interfaces. */
  readonly restricted: boolean;
  /** Use -m nfacct (the real kernel refuses counters that do not exist). */
  readonly nfacct: boolean;
  /** The protocol written, as a canonical name. */
  readonly protocol: 'tcp' | 'udp' | 'sctp' | undefined;
}

function protocolSpelling(p: 'tcp' | 'udp' | 'sctp'): fc.Arbitrary<string> {
  const numbers = { tcp: '6', udp: '17', sctp: '132' };
  return pick([p, p.toUpperCase(), numbers[p]]);
}

function matchArbs(ctx: RuleContext): fc.Arbitrary<Words>[] {
  // IPv6 has no broadcast addresses, and xt_addrtype refuses the type.
  const addressTypes = ctx.family === 4 ? ['UNICAST', 'LOCAL', 'BROADCAST', 'MULTICAST'] : ['UNICAST', 'LOCAL', 'MULTICAST', 'ANYCAST'];
  const arbs: fc.Arbitrary<Words>[] = [
    commentText().map((t) => ['-m', 'comment', '--comment', quoteSaveString(t)]),
    fc
      .tuple(bang, u32Text(), maybe(u32Text()))
      .map(([n, v, m]) => ['-m', 'mark', ...n, '--mark', m === undefined ? v : `${v}/${m}`]),
    fc
      .tuple(bang, probabilityText(), fc.boolean())
      .map(([n, p, modeFirst]) =>
        modeFirst
          ? ['-m', 'statistic', '--mode', 'random', ...n, '--probability', p]
          : ['-m', 'statistic', ...n, '--probability', p, '--mode', 'random'],
      ),
    fc
      .record({
        command: fc.tuple(bang, pick(['--set', '--rcheck', '--update', '--remove'])),
        seconds: maybe(fc.tuple(fc.integer({ min: 1, max: 86400 }), fc.boolean())),
        hitcount: maybe(fc.integer({ min: 0, max: 20 })),
        rttl: fc.boolean(),
        name: maybe(pick(USER_CHAINS)),
        mask: maybe(addressText(ctx.family)),
        side: maybe(pick(['--rsource', '--rdest'])),
      })
      .chain((r) => {
        const groups: Words[] = [[...r.command[0], r.command[1]]];
        // The kernel refuses --seconds, --hitcount, --reap and --rttl with --set and --remove.
        const checks = r.command[1] === '--rcheck' || r.command[1] === '--update';
        if (r.seconds !== undefined && checks) groups.push(['--seconds', `${r.seconds[0]}`], ...(r.seconds[1] ? [['--reap']] : []));
        if (r.hitcount !== undefined && checks) groups.push(['--hitcount', `${r.hitcount}`]);
        if (r.rttl && checks) groups.push(['--rttl']);
        if (r.name !== undefined) groups.push(['--name', r.name]);
        if (r.mask !== undefined) groups.push(['--mask', r.mask]);
        if (r.side !== undefined) groups.push([r.side]);
        return shuffled(groups).map((gs) => ['-m', 'recent', ...gs.flat()]);
      }),
    fc
      .tuple(bang, listText(['INVALID', 'NEW', 'RELATED', 'ESTABLISHED', 'UNTRACKED', 'SNAT', 'DNAT']))
      .map(([n, states]) => ['-m', 'conntrack', ...n, '--ctstate', states]),
    fc
      .record({
        src: maybe(fc.tuple(bang, listText(addressTypes))),
        dst: fc.tuple(bang, listText(addressTypes)),
        dstFirst: fc.boolean(),
      })
      .map(({ src, dst, dstFirst }) => {
        const d = [...dst[0], '--dst-type', dst[1]];
        const s = src === undefined ? [] : [...src[0], '--src-type', src[1]];
        return ['-m', 'addrtype', ...(dstFirst ? [...d, ...s] : [...s, ...d])];
      }),
  ];
  if (ctx.nfacct) {
    arbs.push(pick(['ct_state_invalid_dropped_pkts', 'localhost_nps_accepted_pkts']).map((n) => ['-m', 'nfacct', '--nfacct-name', n]));
  }
  return arbs;
}

/**
 * At most one port match per rule, as kube-proxy writes: iptables-nft-save folds several
 * tcp/udp/sctp matches of one rule into one (the view does not model that).
 */
function portMatchArb(ctx: RuleContext): fc.Arbitrary<Words> {
  const p = ctx.protocol;
  if (p === undefined) return fc.constant([]);
  return fc.oneof(
    fc.constant([]),
    fc
      .record({ sport: maybe(fc.tuple(bang, portText())), dport: maybe(fc.tuple(bang, portText())), long: fc.boolean() })
      .map(({ sport, dport, long }) => [
        '-m',
        p,
        ...(dport === undefined ? [] : [...dport[0], long ? '--destination-port' : '--dport', dport[1]]),
        ...(sport === undefined ? [] : [...sport[0], long ? '--source-port' : '--sport', sport[1]]),
      ]),
    fc
      .tuple(
        bang,
        pick(['--dports', '--sports', '--ports', '--destination-ports']),
        fc.array(
          fc.oneof(
            fc.nat(65535).map(String),
            fc.tuple(fc.nat(65535), fc.nat(65535)).map(([a, b]) => `${Math.min(a, b)}:${Math.max(a, b)}`),
          ),
          { minLength: 1, maxLength: 7 },
        ),
      )
      .map(([n, option, ports]) => ['-m', 'multiport', ...n, option, ports.join(',')]),
  );
}

function targetArb(ctx: RuleContext, jumpable: readonly string[]): fc.Arbitrary<Words> {
  const arbs: fc.Arbitrary<Words>[] = [
    pick(['ACCEPT', 'RETURN']).map((t) => ['-j', t]),
    fc.constant([]),
    fc
      .tuple(pick(['--set-xmark', '--set-mark', '--and-mark', '--or-mark', '--xor-mark']), u32Text(), maybe(u32Text()))
      .map(([op, v, m]) => ['-j', 'MARK', op, m !== undefined && (op === '--set-xmark' || op === '--set-mark') ? `${v}/${m}` : v]),
  ];
  if (jumpable.length > 0) arbs.push(fc.tuple(pick(jumpable), fc.boolean()).map(([c, g]) => [g ? '-g' : '-j', c]));
  if (ctx.restricted) return fc.oneof(...arbs);
  if (ctx.table === 'filter') {
    const types =
      ctx.family === 4
        ? ['icmp-net-unreachable', 'net-unreach', 'host-unreach', 'icmp-port-unreachable', 'port-unreach', 'proto-unreach', 'net-prohib', 'host-prohib', 'admin-prohib', 'icmp-host-prohibited']
        : ['icmp6-no-route', 'no-route', 'adm-prohibited', 'addr-unreach', 'port-unreach', 'icmp6-policy-fail', 'reject-route'];
    const resets = ctx.family === 4 ? ['tcp-reset', 'tcp-rst'] : ['tcp-reset'];
    const withReset = ctx.protocol === 'tcp' ? [...types, ...resets] : types;
    arbs.push(
      fc.constant(['-j', 'DROP']),
      maybe(pick(withReset)).map((t) => (t === undefined ? ['-j', 'REJECT'] : ['-j', 'REJECT', '--reject-with', t])),
    );
  } else {
    arbs.push(
      fc
        .record({ address: addressText(ctx.family), port: maybe(fc.tuple(fc.nat(65535), fc.nat(65535))), random: fc.boolean(), persistent: fc.boolean() })
        .map(({ address, port, random, persistent }) => {
          let to = address;
          if (port !== undefined && ctx.protocol !== undefined) {
            const [a, b] = port;
            const ports = a === b ? `${a}` : `${Math.min(a, b)}-${Math.max(a, b)}`;
            to = ctx.family === 6 ? `[${address}]:${ports}` : `${address}:${ports}`;
          }
          return ['-j', 'DNAT', '--to-destination', to, ...(random ? ['--random'] : []), ...(persistent ? ['--persistent'] : [])];
        }),
      fc
        .record({ random: fc.boolean(), fully: fc.boolean(), ports: maybe(fc.nat(65535)) })
        .map(({ random, fully, ports }) => [
          '-j',
          'MASQUERADE',
          ...(ports !== undefined && ctx.protocol !== undefined ? ['--to-ports', `${ports}`] : []),
          ...(random ? ['--random'] : []),
          ...(fully ? ['--random-fully'] : []),
        ]),
    );
  }
  return fc.oneof(...arbs);
}

function ruleWordsArb(
  family: Family,
  table: 'filter' | 'nat',
  builtin: boolean,
  jumpable: readonly string[],
  nfacct: boolean,
): fc.Arbitrary<Words> {
  return maybe(pick(['tcp', 'udp', 'sctp'] as const)).chain((protocol) => {
    const ctx: RuleContext = { family, table, protocol, restricted: builtin && table === 'nat', nfacct };
    return fc
      .record({
        protocolWords: protocol === undefined ? fc.constant([]) : protocolSpelling(protocol).map((p) => ['-p', p]),
        implicitDport: protocol === undefined ? fc.constant(undefined) : maybe(fc.nat(65535)),
        source: maybe(negatableAddress(family)),
        destination: maybe(negatableAddress(family)),
        // iptables refuses -o in INPUT/PREROUTING and -i in OUTPUT/POSTROUTING.
        inInterface: builtin ? fc.constant(undefined) : maybe(fc.tuple(bang, pick(['eth0', 'eth+', 'cni0']))),
        outInterface: builtin ? fc.constant(undefined) : maybe(fc.tuple(bang, pick(['eth1', 'lo']))),
        matches: fc.array(fc.oneof(...matchArbs(ctx)), { maxLength: 4 }),
        portMatch: portMatchArb(ctx),
        target: targetArb(ctx, jumpable),
      })
      .chain((r) => {
        const headers: Words[] = [];
        if (r.source !== undefined) headers.push([...r.source[0], '-s', r.source[1]]);
        if (r.destination !== undefined) headers.push([...r.destination[0], '-d', r.destination[1]]);
        if (r.inInterface !== undefined) headers.push([...r.inInterface[0], '-i', r.inInterface[1]]);
        if (r.outInterface !== undefined) headers.push([...r.outInterface[0], '-o', r.outInterface[1]]);
        // The protocol comes first so that an implicit match (`-p tcp --dport 80`) can load.
        const leading: Words = [...r.protocolWords, ...(r.implicitDport === undefined ? [] : ['--dport', `${r.implicitDport}`])];
        const portSegments = r.implicitDport === undefined && r.portMatch.length > 0 ? [r.portMatch] : [];
        return shuffled([...headers, ...r.matches, ...portSegments]).map((segments) => [...leading, ...segments.flat(), ...r.target]);
      });
  });
}

function tableBlockArb(family: Family, table: 'filter' | 'nat', nfacct: boolean): fc.Arbitrary<string> {
  const builtins = table === 'filter' ? ['INPUT', 'FORWARD', 'OUTPUT'] : ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'];
  return fc.shuffledSubarray(USER_CHAINS, { minLength: 1 }).chain((declared) => {
    // Jumps go from a chain only to chains declared after it, so there are no loops; nat's
    // built-in chains jump nowhere (a NAT target reached from the wrong hook is refused).
    const ruleArb = pick([...declared, ...builtins]).chain((chain) => {
      const builtin = builtins.includes(chain);
      const jumpable = builtin ? (table === 'filter' ? declared : []) : declared.slice(declared.indexOf(chain) + 1);
      return fc.tuple(fc.constant(chain), ruleWordsArb(family, table, builtin, jumpable, nfacct), fc.boolean());
    });
    return fc.array(ruleArb, { maxLength: 12 }).map((rules) => {
      const lines = [`*${table}`, ...declared.map((c) => `:${c} - [0:0]`)];
      for (const [chain, words, insert] of rules) lines.push([insert ? '-I' : '-A', chain, ...words].join(' '));
      lines.push('COMMIT');
      return lines.map((l) => `${l}\n`).join('');
    });
  });
}

/** A restore text for `family` with a filter block and a nat block, in either order. */
export function restoreTextArb(family: Family, options: { readonly nfacct?: boolean } = {}): fc.Arbitrary<string> {
  const nfacct = options.nfacct ?? true;
  return fc
    .tuple(tableBlockArb(family, 'filter', nfacct), tableBlockArb(family, 'nat', nfacct), fc.boolean())
    .map(([filter, nat, natFirst]) => (natFirst ? nat + filter : filter + nat));
}
