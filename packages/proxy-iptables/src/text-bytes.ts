// Restore text printed as bytes, for a render whose text is assembled in the WebAssembly
// kernel's memory and decoded once (wasm/kernel.ts, beginText … finishText): the rules a
// service port writes besides its endpoints' (which the kernel prints itself), in exactly the
// text print-restore.ts gives. Every string a rule holds is written piece by piece, so no
// concatenation is made per rule; only ASCII text may be written (the callers check that the
// names and config strings are ASCII before they print this way).

import { hasWhitespace } from './print-restore.js';
import type { L4Protocol, Match, Target } from './ruleset.js';
import type { TextOut } from './wasm/kernel.js';

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

  /** The bytes written. */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

const PROTOCOL_TEXT: Readonly<Record<L4Protocol, string>> = {
  tcp: ' -m tcp -p tcp',
  udp: ' -m udp -p udp',
  sctp: ' -m sctp -p sctp',
};

/** What print-restore.ts's spacedMatch prints, appended to `out`. */
function writeMatch(out: TextOut, match: Match): void {
  switch (match.kind) {
    case 'comment':
      if (hasWhitespace(match.text)) {
        out.text(' -m comment --comment "');
        out.text(match.text);
        out.text('"');
      } else {
        out.text(' -m comment --comment ');
        out.text(match.text);
      }
      return;
    case 'protocol':
      out.text(PROTOCOL_TEXT[match.protocol]);
      return;
    case 'dport':
      out.text(' --dport ');
      out.text(String(match.port));
      return;
    case 'source':
      out.text(match.negated ? ' ! -s ' : ' -s ');
      out.text(match.address);
      return;
    case 'destination':
      out.text(match.negated ? ' ! -d ' : ' -d ');
      out.text(match.address);
      return;
    case 'addrtype':
      out.text(match.direction === 'src' ? ' -m addrtype --src-type ' : ' -m addrtype --dst-type ');
      out.text(match.addressType);
      return;
    case 'statistic':
      out.text(' -m statistic --mode random --probability ');
      out.text(match.probability);
      return;
    case 'recent-check':
      out.text(' -m recent --name ');
      out.text(match.name);
      out.text(' --rcheck --seconds ');
      out.text(String(match.seconds));
      out.text(' --reap');
      return;
    case 'recent-set':
      out.text(' -m recent --name ');
      out.text(match.name);
      out.text(' --set');
      return;
    case 'mark':
      out.text(match.negated ? ' -m mark ! --mark ' : ' -m mark --mark ');
      out.text(match.value);
      out.text('/');
      out.text(match.mask);
      return;
    case 'conntrack':
      out.text(match.negated ? ' -m conntrack ! --ctstate ' : ' -m conntrack --ctstate ');
      out.text(match.states.join(','));
      return;
    case 'nfacct':
      out.text(' -m nfacct --nfacct-name ');
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
      out.text(' -j ');
      out.text(target.chain);
      out.text('\n');
      return;
    case 'accept':
      out.text(' -j ACCEPT\n');
      return;
    case 'drop':
      out.text(' -j DROP\n');
      return;
    case 'reject':
      out.text(' -j REJECT\n');
      return;
    case 'return':
      out.text(' -j RETURN\n');
      return;
    case 'dnat':
      out.text(' -j DNAT --to-destination ');
      out.text(target.destination);
      out.text('\n');
      return;
    case 'mark':
      if (target.op === 'or' && target.spelling === 'set-xmark') {
        out.text(' -j MARK --set-xmark ');
        out.text(target.value);
        out.text('/');
        out.text(target.value);
        out.text('\n');
        return;
      }
      out.text(target.op === 'or' ? ' -j MARK --or-mark ' : ' -j MARK --xor-mark ');
      out.text(target.value);
      out.text('\n');
      return;
    case 'masquerade':
      out.text(target.randomFully ? ' -j MASQUERADE --random-fully\n' : ' -j MASQUERADE\n');
      return;
  }
}

/** print-restore.ts's ruleLine(chain, matches, target), appended to `out`. */
export function writeRuleLine(out: TextOut, chain: string, matches: readonly Match[], target: Target | undefined): void {
  out.text('-A ');
  out.text(chain);
  for (const match of matches) writeMatch(out, match);
  writeTargetLine(out, target);
}

/** print-restore.ts's chainLine(chain), appended to `out`. */
export function writeChainLine(out: TextOut, chain: string): void {
  out.text(':');
  out.text(chain);
  out.text(' - [0:0]\n');
}
