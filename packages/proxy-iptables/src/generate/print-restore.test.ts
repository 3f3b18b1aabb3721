// The one printer's outputs agree: the string functions and the byte output (TextBytes) print
// the same text for every kind of match and target, and the fixed texts the WebAssembly kernel
// holds for the lines it prints itself (wasm/kernel-layout.ts) are the printer's own pieces.
import { describe, expect, it } from 'vitest';
import type { Match, Target } from '../ruleset.js';
import { CONSTANT_TEXTS, DECL_HEAD_AT, DECL_TAIL_AT, LAST_JUMP_AT, MASQ_AT, SEP_HEAD_AT, SEP_PREFIX_AT } from '../wasm/kernel-layout.js';
import {
  chainLine,
  endpointChainLines,
  endpointChainTemplate,
  JUMP_TEXT,
  printMatch,
  printRestoreText,
  printTarget,
  ruleHead,
  ruleLine,
  ruleLineAfter,
  statisticJumpText,
  writeChainLine,
  writeRuleLine,
} from './print-restore.js';
import { TextBytes } from './text-bytes.js';

const MATCHES: readonly Match[] = [
  { kind: 'comment', text: 'ns/svc:p' },
  { kind: 'comment', text: 'ns/svc:p cluster IP' },
  { kind: 'protocol', protocol: 'tcp' },
  { kind: 'protocol', protocol: 'udp' },
  { kind: 'protocol', protocol: 'sctp' },
  { kind: 'dport', port: 80 },
  { kind: 'source', address: '10.0.0.1', negated: false },
  { kind: 'source', address: '10.0.0.0/8', negated: true },
  { kind: 'destination', address: '172.30.0.1', negated: false },
  { kind: 'destination', address: '127.0.0.0/8', negated: true },
  { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' },
  { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' },
  { kind: 'statistic', probability: '0.3333333333', denominator: 3 },
  { kind: 'recent-check', name: 'KUBE-SEP-AAAAAAAAAAAAAAAA', seconds: 10800 },
  { kind: 'recent-set', name: 'KUBE-SEP-AAAAAAAAAAAAAAAA' },
  { kind: 'mark', value: '0x4000', mask: '0x4000', negated: false },
  { kind: 'mark', value: '0x4000', mask: '0x4000', negated: true },
  { kind: 'conntrack', states: ['INVALID'], negated: false },
  { kind: 'conntrack', states: ['RELATED', 'ESTABLISHED'], negated: true },
  { kind: 'nfacct', name: 'localhost_nps_accepted_pkts' },
];

const TARGETS: readonly (Target | undefined)[] = [
  undefined,
  { kind: 'jump', chain: 'KUBE-SVC-AAAAAAAAAAAAAAAA' },
  { kind: 'jump', chain: 'KUBE-SERVICES' },
  { kind: 'jump', chain: 'KUBE-MARK-MASQ' },
  { kind: 'accept' },
  { kind: 'drop' },
  { kind: 'reject' },
  { kind: 'return' },
  { kind: 'dnat', destination: '10.180.0.1:8080' },
  { kind: 'dnat', destination: '[fd00::1]:8080' },
  { kind: 'mark', op: 'or', value: '0x4000' },
  { kind: 'mark', op: 'or', value: '0x4000', spelling: 'set-xmark' },
  { kind: 'mark', op: 'xor', value: '0x4000' },
  { kind: 'masquerade', randomFully: false },
  { kind: 'masquerade', randomFully: true },
];

function bytesOf(write: (out: TextBytes) => void): string {
  const out = new TextBytes();
  write(out);
  expect(out.failed).toBe(false);
  return new TextDecoder().decode(out.view());
}

describe('the printer', () => {
  it('prints every match and target as the same text into a string and into bytes', () => {
    for (const chain of ['KUBE-SERVICES', 'KUBE-MARK-MASQ', 'KUBE-SVC-AAAAAAAAAAAAAAAA']) {
      for (const target of TARGETS) {
        for (const match of MATCHES) {
          const text = ruleLine(chain, [match], target);
          expect(bytesOf((out) => writeRuleLine(out, chain, [match], target))).toBe(text);
          expect(ruleLineAfter(ruleHead(chain), [match], target)).toBe(text);
        }
        expect(bytesOf((out) => writeRuleLine(out, chain, MATCHES, target))).toBe(ruleLine(chain, MATCHES, target));
      }
      expect(bytesOf((out) => writeChainLine(out, chain))).toBe(chainLine(chain));
    }
  });

  it('prints kube-proxy\'s argument text for each match and target', () => {
    expect(MATCHES.map(printMatch)).toEqual([
      '-m comment --comment ns/svc:p',
      '-m comment --comment "ns/svc:p cluster IP"',
      '-m tcp -p tcp',
      '-m udp -p udp',
      '-m sctp -p sctp',
      '--dport 80',
      '-s 10.0.0.1',
      '! -s 10.0.0.0/8',
      '-d 172.30.0.1',
      '! -d 127.0.0.0/8',
      '-m addrtype --src-type LOCAL',
      '-m addrtype --dst-type LOCAL',
      '-m statistic --mode random --probability 0.3333333333',
      '-m recent --name KUBE-SEP-AAAAAAAAAAAAAAAA --rcheck --seconds 10800 --reap',
      '-m recent --name KUBE-SEP-AAAAAAAAAAAAAAAA --set',
      '-m mark --mark 0x4000/0x4000',
      '-m mark ! --mark 0x4000/0x4000',
      '-m conntrack --ctstate INVALID',
      '-m conntrack ! --ctstate RELATED,ESTABLISHED',
      '-m nfacct --nfacct-name localhost_nps_accepted_pkts',
    ]);
    expect(TARGETS.flatMap((t) => (t === undefined ? [] : [printTarget(t)]))).toEqual([
      '-j KUBE-SVC-AAAAAAAAAAAAAAAA',
      '-j KUBE-SERVICES',
      '-j KUBE-MARK-MASQ',
      '-j ACCEPT',
      '-j DROP',
      '-j REJECT',
      '-j RETURN',
      '-j DNAT --to-destination 10.180.0.1:8080',
      '-j DNAT --to-destination [fd00::1]:8080',
      '-j MARK --or-mark 0x4000',
      '-j MARK --set-xmark 0x4000/0x4000',
      '-j MARK --xor-mark 0x4000',
      '-j MASQUERADE',
      '-j MASQUERADE --random-fully',
    ]);
  });

  it('prints an endpoint chain\'s template and a statistic jump as ruleLine prints the rules', () => {
    const chain = 'KUBE-SEP-AAAAAAAAAAAAAAAA';
    for (const comment of [undefined, MATCHES[0], MATCHES[1]]) {
      for (const protocol of ['tcp', 'udp', 'sctp'] as const) {
        const template = endpointChainTemplate(comment, protocol);
        const withComment = (more: readonly Match[]): Match[] => (comment === undefined ? [...more] : [comment, ...more]);
        expect(endpointChainLines(template, chain, '10.180.0.1', '10.180.0.1:8080')).toBe(
          ruleLine(chain, withComment([{ kind: 'source', address: '10.180.0.1', negated: false }]), { kind: 'jump', chain: 'KUBE-MARK-MASQ' }) +
            ruleLine(chain, withComment([{ kind: 'protocol', protocol }]), { kind: 'dnat', destination: '10.180.0.1:8080' }),
        );
      }
    }
    const statistic = MATCHES[12] as Match;
    expect(ruleHead('KUBE-SVC-X') + statisticJumpText(statistic) + chain + '\n').toBe(ruleLine('KUBE-SVC-X', [statistic], { kind: 'jump', chain }));
    expect(ruleHead('KUBE-SVC-X') + JUMP_TEXT + chain + '\n').toBe(ruleLine('KUBE-SVC-X', [], { kind: 'jump', chain }));
  });

  it('frames a ruleset as kube-proxy does', () => {
    const empty = { name: 'filter', chains: [], rules: [], deletedChains: [] } as const;
    expect(
      printRestoreText({
        family: 4,
        tables: [empty, { name: 'nat', chains: ['KUBE-SERVICES'], rules: [{ chain: 'KUBE-SERVICES', matches: [] }], deletedChains: ['KUBE-SVC-X'] }],
      }),
    ).toBe('*filter\nCOMMIT\n*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES\n-X KUBE-SVC-X\nCOMMIT\n');
  });

  it('holds the pieces the WebAssembly kernel prints its own lines with', () => {
    const texts = new Map(CONSTANT_TEXTS);
    const sep = 'KUBE-SEP-AAAAAAAAAAAAAAAA';
    expect(texts.get(DECL_HEAD_AT) + 'AAAAAAAAAAAAAAAA' + texts.get(DECL_TAIL_AT)).toBe(chainLine(sep));
    expect(texts.get(SEP_HEAD_AT)).toBe(ruleHead(texts.get(SEP_PREFIX_AT) ?? ''));
    expect(texts.get(MASQ_AT)).toBe(ruleLine('X', [], { kind: 'jump', chain: 'KUBE-MARK-MASQ' }).slice('-A X'.length) + ruleHead(texts.get(SEP_PREFIX_AT) ?? ''));
    expect(texts.get(LAST_JUMP_AT)).toBe(JUMP_TEXT);
    expect(sep.startsWith(texts.get(SEP_PREFIX_AT) ?? '?')).toBe(true);
  });
});
