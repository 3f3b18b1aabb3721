// Options and input handling that every offline command shares: `-f FILE|-` and `-o`.
import { Option, type Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { inputError, usageError } from '../cli-error.js';
import { decodeText, loadDump, skippedNote, type Dump } from '../dump/load-dump.js';

export const FILENAME_HELP = 'the input: YAML or JSON, a List, a multi-document stream or `kubectl get -o yaml` output; - reads standard input';

export function addFilenameOption(command: Command): Command {
  return command.requiredOption('-f, --filename <file>', FILENAME_HELP);
}

export function addOutputOption(command: Command, formats: readonly string[], fallback: string): Command {
  return command.addOption(new Option('-o, --output <format>', 'output format').choices([...formats]).default(fallback));
}

function describeReadError(file: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return `${file}: no such file`;
    case 'EISDIR':
      return `${file}: is a directory`;
    case 'EACCES':
      return `${file}: permission denied`;
    default:
      return `${file}: cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The text of `-f FILE|-`; a file that cannot be opened is a usage error (exit 2). */
export async function readInputText(io: CliIo, file: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = file === '-' ? await io.readStdin() : await io.readFile(file);
  } catch (error) {
    throw usageError(describeReadError(file, error));
  }
  return decodeText(bytes);
}

/** The dump of `-f FILE|-`; one that does not decode is an input error (exit 1) naming each problem. */
export async function readDump(io: CliIo, file: string): Promise<Dump> {
  return dumpFromText(io, file, await readInputText(io, file));
}

export function dumpFromText(io: CliIo, file: string, text: string): Dump {
  const loaded = loadDump(file, text);
  if (!loaded.ok) throw inputError(loaded.error.message);
  const note = skippedNote(loaded.value);
  if (note !== undefined) io.err(`warning: ${note}\n`);
  return loaded.value;
}
