// Restore text printed as bytes, for a render whose nat text is printed in the WebAssembly
// kernel's memory (wasm/kernel.ts, beginText … finishBytes): the filter table's rules, which the
// kernel's regions do not hold. print-restore.ts's printer writes into it as
// into the kernel's streams, so the bytes are exactly the text print-restore.ts's string
// functions give. Only ASCII text may be written (the callers check that the names and config
// strings are ASCII before they print this way).

import type { Constant, TextOut } from '../rule-kernel.js';

/**
 * Copies `text`'s UTF-16 code units into `bytes` from `at` (room for text.length bytes must be
 * there), one byte each, and returns them ORed together: at most 0x7f when the text is ASCII,
 * so that the bytes are its UTF-8.
 */
export function copyCodeUnits(text: string, bytes: Uint8Array, at: number): number {
  let units = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    units |= unit;
    bytes[at + i] = unit;
  }
  return units;
}

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
    if (copyCodeUnits(text, this.buffer, this.length) > 0x7f) this.failed = true;
    this.length += n;
  }

  constant(constant: Constant): void {
    this.text(constant.text);
  }

  /** The bytes written. */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}
