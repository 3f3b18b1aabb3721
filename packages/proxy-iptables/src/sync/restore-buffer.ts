// The bytes a sync hands iptables-restore, written into a buffer the caller keeps from one sync
// to the next, so that a sync in steady state takes no fresh memory for its text: the buffer
// grows geometrically to the largest text so far and is then only written over. kube-proxy does
// the same with the bytes.Buffer its proxier keeps for the restore data, reset at each sync.
// upstream (v1.33): pkg/proxy/iptables/proxier.go (Proxier.iptablesData, reset and filled by
// syncProxyRules, then handed to RestoreAll)
//
// A buffer belongs to its caller, who passes it in SyncOptions.buffer (the package keeps no
// buffer of its own between calls). A sync's restoreBytes is a view of it: valid until the next
// sync given the same buffer writes over it.

import { utf8Length, type SyncResult, type SyncState, type SyncStats } from './state.js';

const encoder = new TextEncoder();
/** writeAll's short part, and how long a string it gathers before writing it (well under V8's 128 KiB large objects). */
const SHORT_PART = 1024;
const GATHERED = 1 << 15;
/** writeRange copies ranges up to this long byte by byte. */
const SHORT_RANGE = 256;

/** A growable byte buffer for restore texts (see the file's opening comment). */
export class RestoreBuffer {
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

  /** Appends `text` as UTF-8 (the restore text is ASCII but for what users write into names). */
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

/**
 * The buffer a sync writes its text into: the caller's, reset and grown to `bytes`, or a new one
 * of exactly that size.
 */
export function startText(given: RestoreBuffer | undefined, bytes: number): RestoreBuffer {
  const out = given ?? new RestoreBuffer(bytes);
  out.reset();
  out.reserve(bytes);
  return out;
}

const decoder = new TextDecoder();

/**
 * A sync's result: its restoreBytes (the buffer's bytes) and its restoreText, decoded from them
 * when first read (or `text`, when the sync has it whole); reading it after a later sync wrote
 * over the buffer throws instead of giving that sync's text.
 */
export function syncResult(state: SyncState, out: RestoreBuffer, text: string | undefined, stats: SyncStats): SyncResult {
  const restoreBytes = out.view();
  const generation = out.generation;
  let decoded = text;
  return {
    state,
    restoreBytes,
    stats,
    get restoreText(): string {
      if (decoded === undefined) {
        if (out.generation !== generation) throw new Error('restoreText: the sync\'s buffer was written over by a later sync; read the text before the next sync');
        decoded = decoder.decode(restoreBytes);
      }
      return decoded;
    },
  };
}

/** A restore text and its bytes, one of them made from the other when first read (lazyText). */
export interface LazyText {
  text(): string;
  bytes(): Uint8Array;
}

/**
 * A text known as bytes (`out`'s, decoded when the text is first read, which throws once a later
 * text was written into `out`) or as a string (encoded into `buffer`, or a new buffer of its
 * size, when the bytes are first read).
 */
export function lazyText(known: { readonly out: RestoreBuffer } | { readonly text: string; readonly buffer: RestoreBuffer | undefined }): LazyText {
  if ('out' in known) {
    const { out } = known;
    const bytes = out.view();
    const generation = out.generation;
    let text: string | undefined;
    return {
      text: () => {
        if (text === undefined) {
          if (out.generation !== generation) throw new Error('restoreText: the buffer was written over by a later text; read the text before the buffer is used again');
          text = decoder.decode(bytes);
        }
        return text;
      },
      bytes: () => bytes,
    };
  }
  const { text, buffer } = known;
  let bytes: Uint8Array | undefined;
  return {
    text: () => text,
    bytes: () => {
      if (bytes === undefined) {
        const out = startText(buffer, utf8Length(text));
        out.write(text);
        bytes = out.view();
      }
      return bytes;
    },
  };
}
