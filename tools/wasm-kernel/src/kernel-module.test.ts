// The module proxy-iptables ships (src/wasm/kernel-module.ts, base64) is what the emitter here
// emits: the emitter and its assembler are build-time tools, kept out of the package's dist/.
import { describe, expect, it } from 'vitest';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the shipped bytes, an internal module of the package
import { KERNEL_MODULE_BASE64 } from '../../../packages/proxy-iptables/src/wasm/kernel-module.js';
import { emitKernelModule } from './kernel-emitter.js';

describe('the shipped module', () => {
  it('is the emitter’s output (regenerate kernel-module.ts from the printed text if not)', () => {
    const emitted = Buffer.from(emitKernelModule()).toString('base64');
    if (emitted !== KERNEL_MODULE_BASE64) console.log(`emitted module, base64:\n${emitted}`);
    expect(emitted).toBe(KERNEL_MODULE_BASE64);
  });
});
