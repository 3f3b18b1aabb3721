// The bytes of a transaction's text, written into a buffer that a caller may keep from one
// sync to the next: it grows geometrically to the largest text so far and is then written
// over, so that a sync in steady state takes no fresh memory for its text (kube-proxy's
// proxier likewise reuses the buffer its transaction is written into).
// upstream: sigs.k8s.io/knftables v0.0.18 exec.go (the transaction written to a bytes.Buffer
// handed to `nft -f -`).

import { TextBytesBuffer } from '@kubesvc/proxy';

const decoder = new TextDecoder();

/** A growable byte buffer of nft text (see the file's opening comment). */
export class NftTextBuffer extends TextBytesBuffer {}

/** The text of `bytes`. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
