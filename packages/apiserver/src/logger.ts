// Where the shell's controllers say what upstream's would log (klog, runtime.HandleError).
// The levels are the bootstrap controller's: error, warning, info.

export type LogLevel = 'error' | 'warning' | 'info';

export interface Logger {
  log(level: LogLevel, message: string): void;
}

/** Drops everything: for tests and embedders that do not want the noise. */
export const silentLogger: Logger = { log: () => undefined };

/** One line per message on stderr, prefixed with the level's first letter as klog does (E, W, I). */
export const consoleLogger: Logger = {
  log(level, message) {
    const tag = level === 'error' ? 'E' : level === 'warning' ? 'W' : 'I';
    process.stderr.write(`${tag} ${message}\n`);
  },
};

/** A logger that keeps what it was told, for tests and for `kubesvc up`'s status page. */
export interface RecordingLogger extends Logger {
  readonly lines: readonly { readonly level: LogLevel; readonly message: string }[];
}

export function recordingLogger(): RecordingLogger {
  const lines: { level: LogLevel; message: string }[] = [];
  return {
    lines,
    log(level, message) {
      lines.push({ level, message });
    },
  };
}
