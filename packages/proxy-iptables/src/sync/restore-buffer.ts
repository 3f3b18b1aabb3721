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
//
// A sync given no buffer (a first sync, which has no buffer of an earlier sync to reuse) copies
// nothing: its text is the list of pieces of the bytes its state keeps (GatherText), which a
// writer takes as they are. Copying them into a new buffer of the text's size would take as
// many fresh pages as the text has, each faulted in on first touch.

import { TextBytesBuffer } from '@kubesvc/proxy';
import { utf8Length, type SyncResult, type SyncState, type SyncStats } from './state.js';

/** A growable byte buffer for restore texts (see the file's opening comment). */
export class RestoreBuffer extends TextBytesBuffer {}

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
const encoder = new TextEncoder();

/**
 * A sync's text as a list of pieces, in order, for a sync given no buffer: views of the bytes
 * the state keeps (each Service's rendered ranges, the frame's fixed parts), which no later sync
 * writes over, and the few short texts a sync prints itself (the stale chains' lines) encoded
 * alone. Nothing of the text is copied: a writer takes the pieces as they are (a file written
 * piece by piece, a pipe), as kube-proxy hands its buffer to iptables-restore.
 */
export class GatherText {
  readonly chunks: Uint8Array[] = [];
  length = 0;

  write(text: string): void {
    if (text.length > 0) this.writeBytes(encoder.encode(text));
  }

  writeBytes(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  /** Appends a view of bytes[from .. to). */
  writeRange(bytes: Uint8Array, from: number, to: number): void {
    if (to > from) this.writeBytes(bytes.subarray(from, to));
  }
}

/** What a sync writes its text into: the caller's buffer, or (given none) a list of views. */
export type SyncText = RestoreBuffer | GatherText;

/** Where a sync of `bytes` bytes writes its text: the caller's buffer, reset and grown to them, or, given none, a GatherText. */
export function syncText(given: RestoreBuffer | undefined, bytes: number): SyncText {
  return given === undefined ? new GatherText() : startText(given, bytes);
}

/**
 * A sync's result. Written into the caller's buffer: restoreBytes is the buffer's bytes, the
 * one piece of restoreChunks, and restoreText is decoded from them when first read (or is
 * `text`, when the sync has it whole); reading it after a later sync wrote over the buffer
 * throws instead of giving that sync's text. Written as a GatherText: restoreChunks are its
 * pieces, and restoreBytes joins them into a new buffer of the text's size when first read,
 * restoreText decoded from those.
 */
export function syncResult(state: SyncState, out: SyncText, text: string | undefined, stats: SyncStats): SyncResult {
  if (out instanceof GatherText) {
    const chunks = out.chunks;
    let joined: Uint8Array | undefined;
    let decoded = text;
    const bytes = (): Uint8Array => {
      if (joined === undefined) {
        joined = new Uint8Array(out.length);
        let at = 0;
        for (const chunk of chunks) {
          joined.set(chunk, at);
          at += chunk.length;
        }
      }
      return joined;
    };
    return {
      state,
      restoreChunks: chunks,
      stats,
      get restoreBytes(): Uint8Array {
        return bytes();
      },
      get restoreText(): string {
        decoded ??= decoder.decode(bytes());
        return decoded;
      },
    };
  }
  const restoreBytes = out.view();
  const generation = out.generation;
  let decoded = text;
  return {
    state,
    restoreBytes,
    restoreChunks: [restoreBytes],
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
