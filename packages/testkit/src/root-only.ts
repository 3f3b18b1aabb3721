// Test files that need root (network namespaces, iptables, nft): run without root, they would
// fail one by one, each with its own setup error. Instead a run that selects any of them and is
// not root is refused before it starts, with one line saying which files need root and how to
// run them (CI runs as root, so it is never refused there). Never skipped: a skipped test is a
// defect here.
//
// A test file needs root when its name ends in `.kernel.test.ts`, or when a line of it holds
// the marker NEEDS_ROOT_MARKER (a comment near the top: `// @needs-root: what it does as root`).

/** The marker a test file that needs root carries (unless it is a `*.kernel.test.ts`). */
export const NEEDS_ROOT_MARKER = '@needs-root';

const MARKER_LINE = new RegExp(`^\\s*//\\s*${NEEDS_ROOT_MARKER}\\b`, 'm');

/** Whether the test file at `path`, whose text is `text`, needs root. */
export function needsRoot(path: string, text: string): boolean {
  return path.endsWith('.kernel.test.ts') || MARKER_LINE.test(text);
}

/** A selected test file: its path, relative to where vitest runs, and its text. */
export interface SelectedTestFile {
  readonly path: string;
  readonly text: string;
}

/**
 * Why a run of `files` is refused, as one line, or undefined when it may run: `uid` 0 (root),
 * undefined (a platform without uids), or no selected file needs root.
 */
export function rootOnlyRefusal(files: readonly SelectedTestFile[], uid: number | undefined): string | undefined {
  if (uid === undefined || uid === 0) return undefined;
  const rooted = files.filter((f) => needsRoot(f.path, f.text)).map((f) => f.path);
  if (rooted.length === 0) return undefined;
  const n = rooted.length;
  return (
    `refused: ${n} selected test file${n === 1 ? '' : 's'} need${n === 1 ? 's' : ''} root (network namespaces, iptables, nft) and this run is uid ${uid}: ` +
    `${rooted.join(', ')}; run ${n === 1 ? 'it' : 'them'} as root (sudo npx vitest run FILE, as CI does), or select other files.`
  );
}
