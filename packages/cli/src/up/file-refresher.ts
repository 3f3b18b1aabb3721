// A file that `kubesvc up` keeps up to date from a timer (proxy-ports.json): each tick renders
// the content and writes it when it changed since the last write that succeeded. A write that
// fails (EMFILE when descriptors run out, EISDIR when a folder stands where the file goes,
// ENOSPC, EACCES) must not end the process, which serves the API and the DNS: it is counted,
// logged, and tried again at the next tick. The log gets one line per distinct error, not one
// per tick (a timer that fails every 500 ms would otherwise flood it), and one line when the
// file is written again.
import { WriteFailures } from '@kubesvc/node-agent';
import type { Logger } from '@kubesvc/apiserver';

export interface FileRefresherOptions {
  /** The file, as the log names it. */
  readonly path: string;
  /** What the log calls it (`proxy-ports`). */
  readonly what: string;
  /** The file's content now. */
  readonly render: () => string;
  /** Writes the content (atomically, in production); throws on failure. */
  readonly write: (path: string, text: string) => void;
  readonly logger: Logger;
  /** How often tick() runs, for the log line. */
  readonly intervalMs: number;
}

export interface FileRefresher {
  /** Writes the content if it changed or the last attempt failed; never throws. */
  tick(): void;
  /** Failed attempts so far. */
  readonly failures: number;
  /** Failed attempts since the last write that succeeded (0: the file is current). */
  readonly failing: number;
}

export function fileRefresher(options: FileRefresherOptions): FileRefresher {
  let written: string | undefined;
  const failures = new WriteFailures();
  return {
    tick() {
      let text: string;
      try {
        text = options.render();
        if (text === written && failures.failing === 0) return;
        options.write(options.path, text);
      } catch (error) {
        if (failures.fail(error)) {
          const message = error instanceof Error ? error.message : String(error);
          options.logger.log('warning', `${options.what}: cannot write ${options.path}: ${message} (tried again every ${options.intervalMs} ms; logged again only when the error changes)`);
        }
        return;
      }
      const ended = failures.succeed();
      if (ended > 0) options.logger.log('warning', `${options.what}: wrote ${options.path} again after ${ended} failed attempt${ended === 1 ? '' : 's'}`);
      written = text;
    },
    get failures() {
      return failures.total;
    },
    get failing() {
      return failures.failing;
    },
  };
}
