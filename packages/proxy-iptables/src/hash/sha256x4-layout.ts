// Where the SHA-256 module (sha256x4-emitter.ts) finds its messages and leaves its digests. Its
// memory holds QUADS_PER_CALL quads of QUAD_STRIDE bytes, a quad being four messages hashed
// together (one per 32-bit lane of a 128-bit vector), laid out for vector loads:
//   [0, 256)   block 1: word t of lane l (a big-endian message word, as an i32) at byte 16t + 4l;
//   [256, 512) block 2, the same way (read only when a lane needs it);
//   [512, 528) per lane, -1 if its message takes two blocks, else 0;
//   [528, 576) the first three words of each lane's digest: word w at byte 528 + 16w + 4l.

/** Bytes per quad. */
export const QUAD_STRIDE = 576;
/** Byte offset, in a quad, of the two-block mask. */
export const QUAD_MASK = 512;
/** Byte offset, in a quad, of the digests' first three words. */
export const QUAD_DIGEST = 528;
/** Quads one call may hash: the module's one 64 KiB page holds this many. */
export const QUADS_PER_CALL = 64;
