// The screenshot comparison the explorer's browser tests use, on images drawn here pixel by pixel.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, REPO_ROOT } from '../run-bin.fixtures.js';
import { compareImages, expectScreenshot, UPDATE_VARIABLE } from './screenshots.fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A white width×height PNG with the given rectangles painted black. */
function image(width: number, height: number, black: readonly { x: number; y: number; w: number; h: number }[] = []): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(255);
  for (const r of black)
    for (let y = r.y; y < r.y + r.h; y++)
      for (let x = r.x; x < r.x + r.w; x++) {
        const i = (y * width + x) * 4;
        png.data[i] = 0;
        png.data[i + 1] = 0;
        png.data[i + 2] = 0;
      }
  return PNG.sync.write(png);
}

function folders(): { storedDir: string; outputDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'kubesvc-screenshots-'));
  dirs.push(root);
  const storedDir = join(root, '__screenshots__');
  mkdirSync(storedDir);
  return { storedDir, outputDir: join(root, 'test-results') };
}

const LOCAL = { [UPDATE_VARIABLE]: undefined, CI: undefined };

describe('compareImages', () => {
  it('counts the differing pixels of a 20x20 square in a 100x100 image: 400, ratio 0.04', () => {
    const c = compareImages(image(100, 100), image(100, 100, [{ x: 10, y: 10, w: 20, h: 20 }]));
    expect([c.sameSize, c.mismatched, c.total, c.ratio]).toEqual([true, 400, 10_000, 0.04]);
    // The diff image marks the square (pixelmatch's red) and fades the rest.
    const diff = PNG.sync.read(c.diff ?? Buffer.alloc(0));
    const at = (x: number, y: number) => [...diff.data.subarray((y * 100 + x) * 4, (y * 100 + x) * 4 + 3)];
    expect(at(15, 15)).toEqual([255, 0, 0]);
    expect(at(50, 50)).not.toEqual([255, 0, 0]);
  });

  it('finds no difference between equal images, and every pixel when the sizes differ', () => {
    expect(compareImages(image(30, 20, [{ x: 1, y: 1, w: 3, h: 3 }]), image(30, 20, [{ x: 1, y: 1, w: 3, h: 3 }])).mismatched).toBe(0);
    const c = compareImages(image(30, 20), image(30, 21));
    expect([c.sameSize, c.ratio, c.diff]).toEqual([false, 1, undefined]);
  });
});

describe('expectScreenshot', () => {
  it('matches an image within the tolerance and writes nothing', () => {
    const { storedDir, outputDir } = folders();
    writeFileSync(join(storedDir, 'graph.png'), image(100, 100));
    // 4 pixels of 10,000: 0.0004, under 0.001.
    expect(expectScreenshot('graph', image(100, 100, [{ x: 0, y: 0, w: 2, h: 2 }]), { storedDir, outputDir, maxDiffRatio: 0.001, env: LOCAL })).toBe('matched');
    expect(existsSync(outputDir)).toBe(false);
  });

  it('fails over the tolerance, naming the actual and diff images it wrote and the mismatched ratio', () => {
    const { storedDir, outputDir } = folders();
    const stored = image(100, 100);
    writeFileSync(join(storedDir, 'graph.png'), stored);
    const actual = image(100, 100, [{ x: 0, y: 0, w: 4, h: 5 }]);
    // 20 pixels of 10,000: 0.002, over 0.001.
    expect(() => expectScreenshot('graph', actual, { storedDir, outputDir, maxDiffRatio: 0.001, env: LOCAL })).toThrow(
      `screenshot graph does not match ${join(storedDir, 'graph.png')}: 20 of 10000 pixels (ratio 0.002000) differ, over the tolerance 0.001; actual ${join(outputDir, 'graph-actual.png')}; diff ${join(outputDir, 'graph-diff.png')}`,
    );
    expect(readFileSync(join(outputDir, 'graph-actual.png'))).toEqual(actual);
    expect(compareImages(stored, readFileSync(join(outputDir, 'graph-diff.png'))).mismatched).toBeGreaterThanOrEqual(20);
    expect(readFileSync(join(storedDir, 'graph.png'))).toEqual(stored);
  });

  it('fails on an image of another size, with no diff image', () => {
    const { storedDir, outputDir } = folders();
    writeFileSync(join(storedDir, 'matrix.png'), image(100, 100));
    expect(() => expectScreenshot('matrix', image(100, 120), { storedDir, outputDir, maxDiffRatio: 0.5, env: LOCAL })).toThrow(/\(the sizes differ\); actual .*matrix-actual\.png; no diff image/);
    expect(existsSync(join(outputDir, 'matrix-diff.png'))).toBe(false);
  });

  it('fails on a missing stored image, locally and under CI, and writes none', () => {
    const { storedDir, outputDir } = folders();
    for (const env of [LOCAL, { CI: 'true' }]) {
      expect(() => expectScreenshot('trace', image(10, 10), { storedDir, outputDir, maxDiffRatio: 0.01, env })).toThrow(`no stored screenshot ${join(storedDir, 'trace.png')}`);
    }
    expect(existsSync(join(storedDir, 'trace.png'))).toBe(false);
    expect(existsSync(join(outputDir, 'trace-actual.png'))).toBe(true);
  });

  it('refuses to update under CI=true, leaving the stored image as it was', () => {
    const { storedDir, outputDir } = folders();
    const stored = image(10, 10);
    writeFileSync(join(storedDir, 'trace.png'), stored);
    const env = { [UPDATE_VARIABLE]: '1', CI: 'true' };
    expect(() => expectScreenshot('trace', image(10, 10, [{ x: 0, y: 0, w: 10, h: 10 }]), { storedDir, outputDir, maxDiffRatio: 0.01, env })).toThrow(`${UPDATE_VARIABLE} is set under CI`);
    expect(() => expectScreenshot('missing', image(10, 10), { storedDir, outputDir, maxDiffRatio: 0.01, env })).toThrow(`${UPDATE_VARIABLE} is set under CI`);
    expect(readFileSync(join(storedDir, 'trace.png'))).toEqual(stored);
    expect(existsSync(join(storedDir, 'missing.png'))).toBe(false);
  });

  it('updates with the variable set: writes a missing or changed image, keeps an unchanged one', () => {
    const { storedDir, outputDir } = folders();
    const env = { [UPDATE_VARIABLE]: '1', CI: undefined };
    const first = image(10, 10);
    expect(expectScreenshot('graph', first, { storedDir, outputDir, maxDiffRatio: 0.5, env })).toBe('written');
    expect(readFileSync(join(storedDir, 'graph.png'))).toEqual(first);
    expect(expectScreenshot('graph', image(10, 10), { storedDir, outputDir, maxDiffRatio: 0.5, env })).toBe('unchanged');
    // A change within the tolerance is written too: updating takes the page as it now is.
    const second = image(10, 10, [{ x: 0, y: 0, w: 1, h: 1 }]);
    expect(expectScreenshot('graph', second, { storedDir, outputDir, maxDiffRatio: 0.5, env })).toBe('written');
    expect(readFileSync(join(storedDir, 'graph.png'))).toEqual(second);
  });
});

describe("docs/explorer.md's way to refresh the stored screenshots", () => {
  it('sets the update variable and runs, from the cli package, the browser test file that has the screenshot tests', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'explorer.md'), 'utf8');
    const block = /## The screenshots the tests compare[\s\S]*?```sh\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    expect(block.trim().split('\n')).toEqual(['cd packages/cli', `${UPDATE_VARIABLE}=1 npx vitest run src/explore/explorer.browser.test.ts -t screenshot`]);
    const file = readFileSync(join(PACKAGE_ROOT, 'src', 'explore', 'explorer.browser.test.ts'), 'utf8');
    // Every test of the screenshot block is selected by `-t screenshot`, and they name the stored images.
    const titles = [...file.matchAll(/^ {2}it\('(screenshot: [^']*)'|^ {2}it\("(screenshot: [^"]*)"/gm)].map((m) => m[1] ?? m[2]);
    expect(titles).toHaveLength(4);
    for (const name of ['rule-graph', 'trace', 'node-matrix']) {
      expect(file).toContain(`expectScreenshot('${name}'`);
      expect(existsSync(join(PACKAGE_ROOT, 'src', 'explore', '__screenshots__', `${name}.png`)), name).toBe(true);
    }
  });
});
