// The refusal of a run without root that selects a test needing root: the decision for an
// injected uid, and the reporter that makes it at the start of the run, over real files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestSpecification } from 'vitest/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  // Made when a test of this block runs (not when the file is collected), so a run that
  // filters these tests out leaves no folder behind.
  let dir = '';
  let kernel = '';
  let marked = '';
  let plain = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'root-only-'));
    kernel = join(dir, 'a.kernel.test.ts');
    marked = join(dir, 'b.test.ts');
    plain = join(dir, 'c.test.ts');
    writeFileSync(kernel, "import { it } from 'vitest';\n");
    writeFileSync(marked, "// @needs-root: makes a network namespace\nimport { it } from 'vitest';\n");
    writeFileSync(plain, "import { it } from 'vitest';\n");
  });
  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
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

describe("the repository's test files", () => {
  // What needs root in a test: a network namespace made (`ip netns add`, `unshare -n`), the real
  // nft through its namespace fixture, or running a command as another user (runuser). The
  // word `unshare` alone, not `unshared`.
  const NEEDS_ROOT_SIGNS = /unshare(?![a-z])|'netns', 'add'|ip netns add|real-nft\.fixtures|\/usr\/sbin\/runuser/;
  const root = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');

  function testFiles(dir: string): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) out.push(...testFiles(path));
      else if (entry.name.endsWith('.test.ts')) out.push(path);
    }
    return out;
  }

  it('every test file that makes a network namespace, loads rules with the real nft or runs as another user is one that needs root', () => {
    const files = ['packages', 'tools'].flatMap((top) => testFiles(join(root, top))).filter((f) => !f.endsWith('root-only.test.ts'));
    const signed = files.filter((f) => NEEDS_ROOT_SIGNS.test(readFileSync(f, 'utf8')));
    // The scan finds the known ones (so the signs still match something).
    expect(signed.map((f) => relative(root, f))).toContain('packages/proxy-iptables/src/real-parser/real-parser.test.ts');
    const unmarked = signed.filter((f) => !needsRoot(f, readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(unmarked, `mark these with a line "// @needs-root: what it does as root"`).toEqual([]);
  });
});
