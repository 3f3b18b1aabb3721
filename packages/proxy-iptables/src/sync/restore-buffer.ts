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
