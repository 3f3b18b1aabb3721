// What the command needs from the world, as one value, so that every command runs the same
// in the real process (node-io.ts) and in a test's memory (no mocks of Node: a test gives
// plain functions that collect the output).

export interface CliIo {
  /** Writes to standard output, as given (no newline added). */
  readonly out: (text: string) => void;
  /** Writes to standard error, as given (no newline added). */
  readonly err: (text: string) => void;
  /** The whole of standard input, as bytes. */
  readonly readStdin: () => Promise<Uint8Array>;
  /** A file's bytes; rejects with Node's error (its `code`, such as ENOENT) when it cannot be read. */
  readonly readFile: (path: string) => Promise<Uint8Array>;
  /** Whether the path is a directory (symbolic links followed); rejects with Node's error when it is not there. */
  readonly isDirectory: (path: string) => Promise<boolean>;
  /** A directory's entries (`directory`: the entry itself is one, a symbolic link not followed); rejects with Node's error. */
  readonly readDir: (path: string) => Promise<readonly { readonly name: string; readonly directory: boolean }[]>;
  /** Standard error is a terminal: the only case in which a progress bar is drawn. */
  readonly stderrIsTTY: boolean;
  /** Where the progress bar draws; absent where there is no terminal. */
  readonly progressStream?: NodeJS.WritableStream;
  /** Environment variables the command reads (KUBESVC_DEBUG). */
  readonly env: Readonly<Record<string, string | undefined>>;
}
