// Each entry point of the package loads only what it needs: `@kubesvc/proxy-iptables` no
// WebAssembly (neither the kernel's JavaScript side, wasm/kernel.ts, nor its module's bytes,
// wasm/kernel-module.ts; the memory map kernel-layout.ts is numbers the printers share), and
// `@kubesvc/proxy-iptables/wasm` the kernel. The build-time emitter is not in the package at
// all (tools/wasm-kernel). The test follows every static and dynamic import from each entry
// point's source through the package and lists the files and packages they reach.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

/** The bare specifiers (packages, node: built-ins) reached from `entry`, and the package files on the way. */
function reach(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? '';
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(join(src, entry));
  return { files: [...files].map((f) => relative(src, f)).sort(), packages: [...packages].sort() };
}

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
