// The progress bar of a long run, on standard error, drawn by cli-progress, and only when
// standard error is a terminal: in a pipe or a file nothing is written, not even a blank line.
// The stages are the steps of a run (parse, endpoints, rules, write); each ends with a redraw.
import { SingleBar } from 'cli-progress';
import type { CliIo } from './cli-io.js';

export interface Progress {
  /** The stage that starts now. */
  readonly stage: (label: string) => void;
  /** Removes the bar (at the end, or before an error is printed). */
  readonly stop: () => void;
}

const nothing = (): void => undefined;
const NONE: Progress = { stage: nothing, stop: nothing };

/** Inputs at least this large (bytes) get a bar: below it a run takes well under a second. */
export const PROGRESS_MIN_BYTES = 1 << 20;

export function startProgress(io: CliIo, inputBytes: number, stages: readonly string[]): Progress {
  if (!io.stderrIsTTY || io.progressStream === undefined || inputBytes < PROGRESS_MIN_BYTES) return NONE;
  const bar = new SingleBar({
    stream: io.progressStream,
    format: 'kubesvc [{bar}] {value}/{total} {stage}',
    clearOnComplete: true,
    hideCursor: true,
    barsize: 30,
  });
  let done = 0;
  let stopped = false;
  bar.start(stages.length, 0, { stage: stages[0] ?? '' });
  return {
    stage: (label) => {
      if (stopped) return;
      const index = stages.indexOf(label);
      done = index < 0 ? done : index;
      // update() alone redraws only when the last draw is 200 ms old (synchronousUpdate); a stage
      // that follows a quick one would then never be shown, so each stage is drawn at once.
      bar.update(done, { stage: label });
      bar.render();
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      bar.update(stages.length, { stage: 'done' });
      bar.stop();
    },
  };
}
