// A growable byte buffer for the text a proxier hands its loader (iptables-restore's stdin,
// `nft -f -`), which a caller keeps from one sync to the next: it grows geometrically to the
// largest text so far and is then only written over, so that a sync in steady state takes no
// fresh memory for its text. kube-proxy keeps a bytes.Buffer the same way.
// upstream (v1.33): pkg/proxy/iptables/proxier.go (Proxier.iptablesData, reset and filled by
// syncProxyRules), sigs.k8s.io/knftables exec.go (the transaction written to a bytes.Buffer)
//
// The buffer belongs to its caller: the pure packages keep none between calls.

const encoder = new TextEncoder();
/** writeAll's short part, and how long a string it gathers before writing it (well under V8's 128 KiB large objects). */
const SHORT_PART = 1024;
const GATHERED = 1 << 15;
/** writeRange copies ranges up to this long byte by byte. */
const SHORT_RANGE = 256;

/** A growable byte buffer of text (see the file's opening comment). */
export class TextBytesBuffer {
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

  /** Bytes it holds room for without growing. */
  get capacity(): number {
    return this.bytes.length;
  }

  /** How many texts were started in it (reset calls): a view handed out under an older count has been written over. */
  get generation(): number {
    return this.writes;
  }

  /** Starts a new text, giving up the bytes written (views of them are written over next); returns the new generation. */
  reset(): number {
    this.used = 0;
    this.writes++;
    return this.writes;
  }

  /** Makes room for `more` bytes after those written, growing to at least twice the capacity when it must grow. */
  reserve(more: number): void {
    const needed = this.used + more;
    if (needed <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Appends `text` as UTF-8 (the texts are ASCII but for what users write into names and comments). */
  write(text: string): void {
    if (text.length === 0) return;
    this.reserve(text.length);
    const { read, written } = encoder.encodeInto(text, this.bytes.subarray(this.used));
    this.used += written;
    if (read < text.length) {
      // Characters outside ASCII take up to 3 bytes per UTF-16 unit.
      const rest = text.slice(read);
      this.reserve(rest.length * 3);
      this.used += encoder.encodeInto(rest, this.bytes.subarray(this.used)).written;
    }
  }

  /**
   * Appends each of `parts`, as write does: the short ones (a partial sync's cached lines of
   * each unchanged Service, say) gathered into one string first, so that ten thousand of them
   * cost a few encodings instead of one each; the gathered string is young garbage, no fresh
   * memory once the heap's young space is in use.
   */
  writeAll(parts: readonly string[]): void {
    let gathered = '';
    for (const part of parts) {
      if (part.length >= SHORT_PART) {
        if (gathered.length > 0) this.write(gathered);
        gathered = '';
        this.write(part);
      } else {
        gathered += part;
        if (gathered.length >= GATHERED) {
          this.write(gathered);
          gathered = '';
        }
      }
    }
    if (gathered.length > 0) this.write(gathered);
  }

  /** Appends bytes. */
  writeBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Appends bytes[from .. to). */
  writeRange(bytes: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.reserve(n);
    const out = this.bytes;
    const at = this.used;
    // A short range copied byte by byte: cheaper than the view that set() needs.
    if (n <= SHORT_RANGE) for (let i = 0; i < n; i++) out[at + i] = bytes[from + i] as number;
    else out.set(bytes.subarray(from, to), at);
    this.used = at + n;
  }

  /** The bytes written since the last reset (a view, written over by the next text). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.used);
  }
}
