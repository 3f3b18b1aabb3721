// Each entry point of the package loads only what it needs: `@kubesvc/proxy-iptables` no
// WebAssembly (neither the kernel's JavaScript side, wasm/kernel.ts, nor its module's bytes,
// wasm/kernel-module.ts; the memory map kernel-layout.ts is numbers the printers share), and
// `@kubesvc/proxy-iptables/wasm` the kernel. The build-time emitter is not in the package at
// all (tools/wasm-kernel). The test follows every static and dynamic import from each entry
// point's source through the package and lists the files and packages they reach.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const reach = (entry: string) => importGraph(src, entry);

describe('entry points', () => {
  it('@kubesvc/proxy-iptables loads no WebAssembly kernel', () => {
    const { files, packages } = reach('index.ts');
    // The walk did follow the re-exports (the rule builder is behind generate/).
    expect(files).toContain('generate/rule-builder.ts');
    expect(files).toContain('rule-kernel.ts');
    expect(files.filter((f) => f.startsWith('wasm/'))).toEqual(['wasm/kernel-layout.ts']);
    // @kubesvc/proxy is the shared proxy model, which has no WebAssembly at all.
    expect(packages).toEqual(['@kubesvc/api-types', '@kubesvc/proxy']);
  });

  it('@kubesvc/proxy-iptables/wasm loads the kernel and its module', () => {
    const { files } = reach('wasm/index.ts');
    expect(files).toEqual(expect.arrayContaining(['wasm/kernel.ts', 'wasm/kernel-module.ts', 'wasm/kernel-layout.ts', 'rule-kernel.ts']));
  });

  it('the kernel’s emitter and assembler are not in the package', () => {
    expect(existsSync(join(src, 'wasm/kernel-emitter.ts'))).toBe(false);
    expect(existsSync(join(src, 'wasm/assembler.ts'))).toBe(false);
  });
});
