// Where the kernel (tools/wasm-kernel/src/kernel-emitter.ts) and its JavaScript side
// (kernel.ts) keep things in the kernel's memory. Byte offsets.
//
// Hashing: QUADS_PER_CALL quads of QUAD_STRIDE bytes, a quad being four messages hashed together
// (one per 32-bit lane of a 128-bit vector), laid out for vector loads:
//   [0, 256)   block 1: word t of lane l (a big-endian message word, as an i32) at byte 16t + 4l;
//   [256, 512) block 2, the same way (read only when a lane needs it);
//   [512, 528) per lane, -1 if its message takes two blocks, else 0;
//   [528, 576) the first three words of each lane's digest: word w at byte 528 + 16w + 4l.
//
// Printing: fixed texts (CONSTANTS), the texts JavaScript writes per service port (TEXTS), the
// table of statistic-match texts by denominator (STATISTICS, growable), then per service port an
// endpoint record each, an index list, and the output (laid out by kernel.ts after the table).

/** Bytes per quad. */
export const QUAD_STRIDE = 576;
/** Byte offset, in a quad, of the two-block mask. */
export const QUAD_MASK = 512;
/** Byte offset, in a quad, of the digests' first three words. */
export const QUAD_DIGEST = 528;
/** Quads one hash call may take. */
export const QUADS_PER_CALL = 64;

/** The fixed texts, each at the start of a 64-byte slot (vector copies read past a text's end, never past its slot). */
export const CONSTANTS = QUADS_PER_CALL * QUAD_STRIDE;
export const ALPHABET_AT = CONSTANTS;
export const DECL_HEAD_AT = CONSTANTS + 64;
export const DECL_TAIL_AT = CONSTANTS + 128;
export const SEP_HEAD_AT = CONSTANTS + 192;
export const MASQ_AT = CONSTANTS + 256;
export const LAST_JUMP_AT = CONSTANTS + 320;
export const SEP_PREFIX_AT = CONSTANTS + 384;
export const CONSTANT_TEXTS: readonly (readonly [number, string])[] = [
  [ALPHABET_AT, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'],
  [DECL_HEAD_AT, ':KUBE-SEP-'],
  [DECL_TAIL_AT, ' - [0:0]\n'],
  [SEP_HEAD_AT, '-A KUBE-SEP-'],
  [MASQ_AT, ' -j KUBE-MARK-MASQ\n-A KUBE-SEP-'],
  [LAST_JUMP_AT, ' -j '],
  [SEP_PREFIX_AT, 'KUBE-SEP-'],
];

/**
 * The texts JavaScript registers once and has the kernel copy into its output (writeConstant):
 * the fixed pieces of the rules it prints itself, with a vector of slack after each.
 */
export const JS_CONSTANTS = CONSTANTS + 512;
export const JS_CONSTANTS_SIZE = 4096;

/** Where a message is assembled before it is spread over its quad: two blocks and a vector of slack. */
export const SCRATCH = JS_CONSTANTS + JS_CONSTANTS_SIZE;

/** Per service port, written by JavaScript: the hashed text's head (service port name and protocol), a load-balancing rule's head (`-A CHAIN`), the two templates of an endpoint's chain. */
export const TEXT_SLOT = 256;
export const HASH_HEAD_AT = SCRATCH + 256;
export const RULE_HEAD_AT = HASH_HEAD_AT + TEXT_SLOT;
export const TEMPLATE_A_AT = RULE_HEAD_AT + TEXT_SLOT;
export const TEMPLATE_B_AT = TEMPLATE_A_AT + TEXT_SLOT;
/** The longest text a slot takes (the rest is slack for vector copies). */
export const TEXT_MAX = TEXT_SLOT - 16;

/** The table of ` -m statistic --mode random --probability P -j ` texts: entry k (for 1/k) at STATISTICS + 64k, its length in its last byte. */
export const STATISTICS = TEMPLATE_B_AT + TEXT_SLOT;
export const STATISTIC_ENTRY = 64;

/**
 * An endpoint record: its chain name's 16 hash characters, the lengths, the IPv4 address and
 * port as numbers when JavaScript gave them so (the kernel then writes the text, expand), and
 * `ip:port` (`[ip]:port` for IPv6).
 */
export const RECORD = 96;
export const RECORD_NAME = 0;
export const RECORD_HOSTPORT_LENGTH = 16;
export const RECORD_IP_OFFSET = 17;
export const RECORD_IP_LENGTH = 18;
/** 1: the text is to be written from RECORD_IPV4 and RECORD_PORT. */
export const RECORD_NUMERIC = 19;
export const RECORD_IPV4 = 20;
export const RECORD_PORT = 24;
export const RECORD_HOSTPORT = 32;
export const HOSTPORT_MAX = 60;

/** An endpoint's chain declaration, `:KUBE-SEP-XXXXXXXXXXXXXXXX - [0:0]\n`: always this long. */
export const DECL_LINE = 35;
/** The longest message the kernel hashes: two blocks with its 0x80 byte and 64-bit length. */
export const MESSAGE_MAX = 119;
