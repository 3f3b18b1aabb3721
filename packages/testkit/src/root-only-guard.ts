// The vitest side of root-only.ts: a reporter that, when the run starts (the files selected,
// none started), reads each selected test file and, if the run is refused, prints the one
// line and ends the process with exit code 1 before any test runs. vitest.shared.ts adds it to
// every project, so any package with such tests (netlab, node-agent, proxy-iptables, cli,
// tools/workspace) is covered.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestSpecification } from 'vitest/node';
import { rootOnlyRefusal } from './root-only.js';

export interface RootOnlyGuardOptions {
  /** The uid the decision is made for (default: this process's). */
  readonly uid?: () => number | undefined;
  /** Where the refusal goes and what ends the run (default: stderr, then exit code 1). */
  readonly refuse?: (line: string) => void;
}

function refuseRun(line: string): void {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

export class RootOnlyGuard implements Reporter {
  readonly #uid: () => number | undefined;
  readonly #refuse: (line: string) => void;

  constructor(options: RootOnlyGuardOptions = {}) {
    this.#uid = options.uid ?? (() => (typeof process.getuid === 'function' ? process.getuid() : undefined));
    this.#refuse = options.refuse ?? refuseRun;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    const files = [...new Set(specifications.map((s) => s.moduleId))].map((path) => ({ path: relative(process.cwd(), path), text: readFileSync(path, 'utf8') }));
    const refusal = rootOnlyRefusal(files, this.#uid());
    if (refusal !== undefined) this.#refuse(refusal);
  }
}
