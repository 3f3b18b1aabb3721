// The refusal of a run without root that selects a test needing root: the decision for an
// injected uid, and the reporter that makes it at the start of the run, over real files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { afterAll, describe, expect, it } from 'vitest';
import { needsRoot, rootOnlyRefusal } from './root-only.js';
import { RootOnlyGuard } from './root-only-guard.js';

const KERNEL = { path: 'src/lab.kernel.test.ts', text: "import { it } from 'vitest';\n" };
const MARKED = { path: 'src/up/up-nftables.e2e.test.ts', text: "// what it does\n// @needs-root: loads rules with nft\nimport { it } from 'vitest';\n" };
const PLAIN = { path: 'src/lab.test.ts', text: "// mentions @needs-root only in prose, not as a marker line\nimport { it } from 'vitest';\n" };

describe('which test files need root', () => {
  it.each([
    [KERNEL, true],
    [MARKED, true],
    [PLAIN, false],
    [{ path: 'src/kernel.ts', text: '' }, false],
  ])('%j: %s', (file, expected) => {
    expect(needsRoot(file.path, file.text)).toBe(expected);
  });
});

describe('the decision for a uid', () => {
  it('root (uid 0), or a platform without uids: no refusal, whatever is selected', () => {
    expect(rootOnlyRefusal([KERNEL, MARKED], 0)).toBeUndefined();
    expect(rootOnlyRefusal([KERNEL, MARKED], undefined)).toBeUndefined();
  });

  it('not root, with no root-only file selected: no refusal', () => {
    expect(rootOnlyRefusal([PLAIN], 1000)).toBeUndefined();
  });

  it('not root, with root-only files selected: one line naming them and how to run them', () => {
    expect(rootOnlyRefusal([PLAIN, KERNEL, MARKED], 65534)).toBe(
      'refused: 2 selected test files need root (network namespaces, iptables, nft) and this run is uid 65534: src/lab.kernel.test.ts, src/up/up-nftables.e2e.test.ts; run them as root (sudo npx vitest run FILE, as CI does), or select other files.',
    );
    expect(rootOnlyRefusal([KERNEL], 1000)).toBe(
      'refused: 1 selected test file needs root (network namespaces, iptables, nft) and this run is uid 1000: src/lab.kernel.test.ts; run it as root (sudo npx vitest run FILE, as CI does), or select other files.',
    );
  });
});

describe('the reporter, at the start of a run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'root-only-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const kernel = join(dir, 'a.kernel.test.ts');
  const marked = join(dir, 'b.test.ts');
  const plain = join(dir, 'c.test.ts');
  writeFileSync(kernel, "import { it } from 'vitest';\n");
  writeFileSync(marked, "// @needs-root: makes a network namespace\nimport { it } from 'vitest';\n");
  writeFileSync(plain, "import { it } from 'vitest';\n");
  const specs = (...paths: string[]) => paths.map((moduleId) => ({ moduleId }) as unknown as TestSpecification);

  function start(uid: number, ...paths: string[]): string[] {
    const refused: string[] = [];
    new RootOnlyGuard({ uid: () => uid, refuse: (line) => refused.push(line) }).onTestRunStart(specs(...paths));
    return refused;
  }

  it('refuses once, naming the files that need root read from disk, when not root', () => {
    const refused = start(1000, plain, kernel, marked, kernel);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain(`uid 1000: ${relative(process.cwd(), kernel)}, ${relative(process.cwd(), marked)}; run them as root`);
  });

  it('lets the run go as root, and without root when nothing selected needs it', () => {
    expect(start(0, plain, kernel, marked)).toEqual([]);
    expect(start(1000, plain)).toEqual([]);
  });
});
