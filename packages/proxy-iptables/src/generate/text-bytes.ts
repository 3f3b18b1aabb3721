// Restore text printed as bytes, for a render whose text is assembled in the WebAssembly
// kernel's memory and decoded once (wasm/kernel.ts, beginText … finishText): the rules a
// service port writes besides its endpoints' (which the kernel prints itself), in exactly the
// text print-restore.ts gives. Every string a rule holds is written piece by piece, so no
// concatenation is made per rule (its garbage made more scavenges cost more than it saved); the
// fixed pieces are registered with the kernel and copied by it, because a JavaScript loop over
// characters costs some 30 instructions a byte. Only ASCII text may be written (the callers
// check that the names and config strings are ASCII before they print this way).

import { hasWhitespace } from './print-restore.js';
import type { L4Protocol, Match, Target } from '../ruleset.js';
import { registerConstant, type Constant, type TextOut } from '../rule-kernel.js';

/** A growable byte buffer of printed ASCII text (the filter table's rules, which the kernel's regions do not hold). */
export class TextBytes implements TextOut {
  private buffer = new Uint8Array(1 << 12);
  length = 0;
  /** Set when a text written was not ASCII. */
  failed = false;

  text(text: string): void {
    const n = text.length;
    if (this.length + n > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + n));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    const bytes = this.buffer;
    const at = this.length;
    let units = 0;
    for (let i = 0; i < n; i++) {
      const unit = text.charCodeAt(i);
      units |= unit;
      bytes[at + i] = unit;
    }
    if (units > 0x7f) this.failed = true;
    this.length = at + n;
  }

  constant(constant: Constant): void {
    this.text(constant.text);
  }

  /** The bytes written. */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

const C = {
  commentQuoted: registerConstant(' -m comment --comment "'),
  comment: registerConstant(' -m comment --comment '),
  dport: registerConstant(' --dport '),
  notSource: registerConstant(' ! -s '),
  source: registerConstant(' -s '),
  notDestination: registerConstant(' ! -d '),
  destination: registerConstant(' -d '),
  srcType: registerConstant(' -m addrtype --src-type '),
  dstType: registerConstant(' -m addrtype --dst-type '),
  statistic: registerConstant(' -m statistic --mode random --probability '),
  recentName: registerConstant(' -m recent --name '),
  rcheck: registerConstant(' --rcheck --seconds '),
  reap: registerConstant(' --reap'),
  set: registerConstant(' --set'),
  notMark: registerConstant(' -m mark ! --mark '),
  mark: registerConstant(' -m mark --mark '),
  notCtstate: registerConstant(' -m conntrack ! --ctstate '),
  ctstate: registerConstant(' -m conntrack --ctstate '),
  nfacct: registerConstant(' -m nfacct --nfacct-name '),
  jump: registerConstant(' -j '),
  accept: registerConstant(' -j ACCEPT\n'),
  drop: registerConstant(' -j DROP\n'),
  reject: registerConstant(' -j REJECT\n'),
  return: registerConstant(' -j RETURN\n'),
  dnat: registerConstant(' -j DNAT --to-destination '),
  setXmark: registerConstant(' -j MARK --set-xmark '),
  orMark: registerConstant(' -j MARK --or-mark '),
  xorMark: registerConstant(' -j MARK --xor-mark '),
  masqueradeFully: registerConstant(' -j MASQUERADE --random-fully\n'),
  masquerade: registerConstant(' -j MASQUERADE\n'),
  chainTail: registerConstant(' - [0:0]\n'),
  head: registerConstant('-A '),
  services: registerConstant('KUBE-SERVICES'),
  markMasq: registerConstant('KUBE-MARK-MASQ'),
};

const PROTOCOL_TEXT: Readonly<Record<L4Protocol, Constant>> = {
  tcp: registerConstant(' -m tcp -p tcp'),
  udp: registerConstant(' -m udp -p udp'),
  sctp: registerConstant(' -m sctp -p sctp'),
};

/** Chains most rules name, copied as constants. */
const FIXED_CHAINS: ReadonlyMap<string, Constant> = new Map([
  ['KUBE-SERVICES', C.services],
  ['KUBE-MARK-MASQ', C.markMasq],
]);

function writeChain(out: TextOut, chain: string): void {
  const fixed = chain.length === 13 || chain.length === 14 ? FIXED_CHAINS.get(chain) : undefined;
  if (fixed !== undefined) out.constant(fixed);
  else out.text(chain);
}

/** What print-restore.ts's spacedMatch prints, appended to `out`. */
function writeMatch(out: TextOut, match: Match): void {
  switch (match.kind) {
    case 'comment':
      if (hasWhitespace(match.text)) {
        out.constant(C.commentQuoted);
        out.text(match.text);
        out.text('"');
      } else {
        out.constant(C.comment);
        out.text(match.text);
      }
      return;
    case 'protocol':
      out.constant(PROTOCOL_TEXT[match.protocol]);
      return;
    case 'dport':
      out.constant(C.dport);
      out.text(String(match.port));
      return;
    case 'source':
      out.constant(match.negated ? C.notSource : C.source);
      out.text(match.address);
      return;
    case 'destination':
      out.constant(match.negated ? C.notDestination : C.destination);
      out.text(match.address);
      return;
    case 'addrtype':
      out.constant(match.direction === 'src' ? C.srcType : C.dstType);
      out.text(match.addressType);
      return;
    case 'statistic':
      out.constant(C.statistic);
      out.text(match.probability);
      return;
    case 'recent-check':
      out.constant(C.recentName);
      out.text(match.name);
      out.constant(C.rcheck);
      out.text(String(match.seconds));
      out.constant(C.reap);
      return;
    case 'recent-set':
      out.constant(C.recentName);
      out.text(match.name);
      out.constant(C.set);
      return;
    case 'mark':
      out.constant(match.negated ? C.notMark : C.mark);
      out.text(match.value);
      out.text('/');
      out.text(match.mask);
      return;
    case 'conntrack':
      out.constant(match.negated ? C.notCtstate : C.ctstate);
      out.text(match.states.join(','));
      return;
    case 'nfacct':
      out.constant(C.nfacct);
      out.text(match.name);
      return;
  }
}

/** What print-restore.ts's spacedTargetLine prints (the target and the newline), appended to `out`. */
function writeTargetLine(out: TextOut, target: Target | undefined): void {
  if (target === undefined) {
    out.text('\n');
    return;
  }
  switch (target.kind) {
    case 'jump':
      out.constant(C.jump);
      writeChain(out, target.chain);
      out.text('\n');
      return;
    case 'accept':
      out.constant(C.accept);
      return;
    case 'drop':
      out.constant(C.drop);
      return;
    case 'reject':
      out.constant(C.reject);
      return;
    case 'return':
      out.constant(C.return);
      return;
    case 'dnat':
      out.constant(C.dnat);
      out.text(target.destination);
      out.text('\n');
      return;
    case 'mark':
      if (target.op === 'or' && target.spelling === 'set-xmark') {
        out.constant(C.setXmark);
        out.text(target.value);
        out.text('/');
        out.text(target.value);
        out.text('\n');
        return;
      }
      out.constant(target.op === 'or' ? C.orMark : C.xorMark);
      out.text(target.value);
      out.text('\n');
      return;
    case 'masquerade':
      out.constant(target.randomFully ? C.masqueradeFully : C.masquerade);
      return;
  }
}

/** print-restore.ts's ruleLine(chain, matches, target), appended to `out`. */
export function writeRuleLine(out: TextOut, chain: string, matches: readonly Match[], target: Target | undefined): void {
  out.constant(C.head);
  writeChain(out, chain);
  for (const match of matches) writeMatch(out, match);
  writeTargetLine(out, target);
}

/** print-restore.ts's chainLine(chain), appended to `out`. */
export function writeChainLine(out: TextOut, chain: string): void {
  out.text(':');
  out.text(chain);
  out.constant(C.chainTail);
}
