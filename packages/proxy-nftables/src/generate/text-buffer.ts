// The bytes of a transaction's text, written into a buffer that a caller may keep from one
// sync to the next: it grows geometrically to the largest text so far and is then written
// over, so that a sync in steady state takes no fresh memory for its text (kube-proxy's
// proxier likewise reuses the buffer its transaction is written into).
// upstream: sigs.k8s.io/knftables v0.0.18 exec.go (the transaction written to a bytes.Buffer
// handed to `nft -f -`).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A growable byte buffer of nft text (see the file's opening comment). */
export class NftTextBuffer {
  private bytes: Uint8Array;
  private used = 0;
  private writes = 0;

  /** `initialBytes`: the first capacity (it doubles as texts need). */
  constructor(initialBytes = 1 << 16) {
    this.bytes = new Uint8Array(Math.max(16, Math.ceil(initialBytes)));
  }

  /** Bytes written since the last reset. */
  get length(): number {
    return this.used;
  }

  /** How many texts were started in it: a view handed out under an older count has been written over. */
  get generation(): number {
    return this.writes;
  }

  /** Starts a new text, giving up the bytes written; returns the new generation. */
  reset(): number {
    this.used = 0;
    this.writes++;
    return this.writes;
  }

  private grow(more: number): void {
    const grown = new Uint8Array(Math.max(this.used + more, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Appends `text` as UTF-8 (nft text is ASCII but for what users write into names and comments). */
  write(text: string): void {
    if (text.length === 0) return;
    if (this.used + text.length > this.bytes.length) this.grow(text.length);
    const { read, written } = encoder.encodeInto(text, this.bytes.subarray(this.used));
    this.used += written;
    if (read < text.length) {
      // Characters outside ASCII take up to 3 bytes per UTF-16 unit.
      const rest = text.slice(read);
      if (this.used + rest.length * 3 > this.bytes.length) this.grow(rest.length * 3);
      this.used += encoder.encodeInto(rest, this.bytes.subarray(this.used)).written;
    }
  }

  /** The bytes written since the last reset (a view, written over by the next text). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.used);
  }
}

/** The text of `bytes`. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
