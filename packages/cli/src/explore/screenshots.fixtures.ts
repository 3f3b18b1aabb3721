// Screenshots compared to stored ones: pngjs decodes both PNGs, pixelmatch counts the pixels
// that differ (anti-aliased pixels apart), and the share of such pixels must stay at or under a
// tolerance. The stored images are committed next to the test in __screenshots__/.
//
//   KUBESVC_UPDATE_SCREENSHOTS=1 npx vitest run src/explore/explorer.browser.test.ts
//
// writes the images again (only those whose pixels changed). Under CI=true that is refused, and
// a missing stored image fails the test instead of being written.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** The variable that makes the screenshot tests write their stored images again. */
export const UPDATE_VARIABLE = 'KUBESVC_UPDATE_SCREENSHOTS';

export interface ScreenshotOptions {
  /** Where the stored images are (`<name>.png`). */
  readonly storedDir: string;
  /** Where the actual and diff images of a mismatch are written (a test-results folder). */
  readonly outputDir: string;
  /** The largest share of mismatched pixels (0..1) that still matches. */
  readonly maxDiffRatio: number;
  /** pixelmatch's per-pixel colour threshold (0..1; smaller is stricter). */
  readonly threshold?: number;
  /** The environment read for the update variable and CI (process.env by default). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface ImageComparison {
  /** Whether the two images have the same width and height (if not, every pixel counts as mismatched). */
  readonly sameSize: boolean;
  readonly mismatched: number;
  readonly total: number;
  readonly ratio: number;
  /** The diff image (pixelmatch's: the expected image faded, mismatched pixels red), when the sizes agree. */
  readonly diff: Buffer | undefined;
}

/** Compares two PNG images pixel by pixel. */
export function compareImages(expected: Uint8Array, actual: Uint8Array, threshold = 0.1): ImageComparison {
  const a = PNG.sync.read(Buffer.from(expected));
  const b = PNG.sync.read(Buffer.from(actual));
  if (a.width !== b.width || a.height !== b.height) {
    const total = Math.max(a.width * a.height, b.width * b.height);
    return { sameSize: false, mismatched: total, total, ratio: 1, diff: undefined };
  }
  const out = new PNG({ width: a.width, height: a.height });
  const mismatched = pixelmatch(a.data, b.data, out.data, a.width, a.height, { threshold });
  const total = a.width * a.height;
  return { sameSize: true, mismatched, total, ratio: mismatched / total, diff: PNG.sync.write(out) };
}

const isSet = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== '0' && value !== 'false';

/**
 * Checks `actual` (a PNG) against the stored `<name>.png`. Throws, naming the images written and
 * the mismatched share, when it differs by more than the tolerance; throws when there is no
 * stored image (unless updating). With the update variable set (never under CI) it writes the
 * stored image instead, when any pixel changed, and returns what it did.
 */
export function expectScreenshot(name: string, actual: Uint8Array, options: ScreenshotOptions): 'matched' | 'written' | 'unchanged' {
  const env = options.env ?? process.env;
  const stored = join(options.storedDir, `${name}.png`);
  const update = isSet(env[UPDATE_VARIABLE]);
  const ci = isSet(env['CI']);
  if (update && ci) throw new Error(`${UPDATE_VARIABLE} is set under CI: stored screenshots are refreshed on a developer's machine and committed, never in CI`);
  const refresh = `refresh it with ${UPDATE_VARIABLE}=1 npx vitest run <this test file> (see docs/explorer.md)`;
  if (!existsSync(stored)) {
    if (update) {
      mkdirSync(options.storedDir, { recursive: true });
      writeFileSync(stored, actual);
      return 'written';
    }
    const actualPath = join(options.outputDir, `${name}-actual.png`);
    mkdirSync(options.outputDir, { recursive: true });
    writeFileSync(actualPath, actual);
    throw new Error(`no stored screenshot ${stored}; the page as drawn is ${actualPath}; ${refresh}`);
  }
  const comparison = compareImages(readFileSync(stored), actual, options.threshold);
  if (update) {
    if (comparison.mismatched === 0) return 'unchanged';
    writeFileSync(stored, actual);
    return 'written';
  }
  if (comparison.ratio <= options.maxDiffRatio) return 'matched';
  mkdirSync(options.outputDir, { recursive: true });
  const actualPath = join(options.outputDir, `${name}-actual.png`);
  writeFileSync(actualPath, actual);
  let diffNote = 'no diff image: the sizes differ';
  if (comparison.diff !== undefined) {
    const diffPath = join(options.outputDir, `${name}-diff.png`);
    writeFileSync(diffPath, comparison.diff);
    diffNote = `diff ${diffPath}`;
  }
  const share = `${comparison.mismatched} of ${comparison.total} pixels (ratio ${comparison.ratio.toFixed(6)}) differ, over the tolerance ${options.maxDiffRatio}`;
  throw new Error(`screenshot ${name} does not match ${stored}: ${share}${comparison.sameSize ? '' : ' (the sizes differ)'}; actual ${actualPath}; ${diffNote}; if the change is meant, ${refresh}`);
}
