// Options and input handling that every offline command shares: `-f` (filename-inputs.ts) and `-o`.
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { inputError, usageError, type CliError } from '../cli-error.js';
import type { ManifestIssue } from '@kubesvc/api-types';
import { ALIAS_EXPANSION_FACTOR, ALIAS_EXPANSION_FLOOR, aliasExpansionLimit, aliasExpansionOver } from '../dump/alias-expansion.js';
import { decodeText, loadDump, mergeDumps, skippedNote, type Dump } from '../dump/load-dump.js';
import { collectFilenames, describeReadError, expandFilenames, inputsLabel, type FilenameFlags } from './filename-inputs.js';

export const FILENAME_HELP =
  'the input: YAML or JSON, a List, a multi-document stream or `kubectl get -o yaml` output; repeatable and comma-separated (all inputs read as one dump); a directory reads its .json, .yaml and .yml files; - reads standard input';

export const RECURSIVE_HELP = 'read the directories -f names and all their subdirectories';

/**
 * `-f, --filename` (repeatable, comma-separated) and `-R, --recursive`, as kubectl's. Required
 * unless `optional` gives the help text of the case without it (the live cluster).
 */
export function addFilenameOption(command: Command, optional?: string): Command {
  const help = optional === undefined ? FILENAME_HELP : `${FILENAME_HELP}; ${optional}`;
  const withFile = optional === undefined ? command.requiredOption('-f, --filename <file>', help, collectFilenames) : command.option('-f, --filename <file>', help, collectFilenames);
  return withFile.option('-R, --recursive', RECURSIVE_HELP);
}

/** The byte offset of the first sequence in `bytes` that is not UTF-8, or undefined when all of it is. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  const cont = (at: number, low = 0x80, high = 0xbf): boolean => at < bytes.length && (bytes[at] ?? 0) >= low && (bytes[at] ?? 0) <= high;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let n: number;
    if (b < 0x80) n = 1;
    else if (b >= 0xc2 && b <= 0xdf && cont(i + 1)) n = 2;
    else if (b === 0xe0 && cont(i + 1, 0xa0) && cont(i + 2)) n = 3;
    else if (((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) && cont(i + 1) && cont(i + 2)) n = 3;
    else if (b === 0xed && cont(i + 1, 0x80, 0x9f) && cont(i + 2)) n = 3;
    else if (b === 0xf0 && cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3)) n = 4;
    else if (b >= 0xf1 && b <= 0xf3 && cont(i + 1) && cont(i + 2) && cont(i + 3)) n = 4;
    else if (b === 0xf4 && cont(i + 1, 0x80, 0x8f) && cont(i + 2) && cont(i + 3)) n = 4;
    else return i;
    i += n;
  }
  return undefined;
}

/**
 * The text of `-f FILE|-`; a file that cannot be opened is a usage error (exit 2), one that is
 * not UTF-8 an input error (exit 1) naming the first bad byte, as kubectl's YAML reader refuses
 * it ("invalid leading UTF-8 octet"; upstream: sigs.k8s.io/yaml/goyaml.v2/readerc.go) rather
 * than reading a name with a replacement character in it.
 */
export async function readInputText(io: CliIo, file: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = file === '-' ? await io.readStdin() : await io.readFile(file);
  } catch (error) {
    throw usageError(describeReadError(file, error));
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes) ?? 0;
    let line = 1;
    let start = 0;
    for (let i = 0; i < at; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        start = i + 1;
      }
    }
    throw inputError(`${file}: not UTF-8 text: byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')} at line ${line}, byte ${at - start + 1} of the line`);
  }
  return decodeText(bytes);
}

/** One input's name (a path, or `-`) and its text. */
export interface InputText {
  readonly source: string;
  readonly text: string;
}

/** The text of every input `-f` names (filename-inputs.ts), in order. */
export async function readInputs(io: CliIo, flags: FilenameFlags): Promise<InputText[]> {
  const inputs: InputText[] = [];
  for (const source of await expandFilenames(io, flags)) inputs.push({ source, text: await readInputText(io, source) });
  return inputs;
}

/** The dump of the `-f` inputs; one that does not decode is an input error (exit 1) naming each problem. */
export async function readDump(io: CliIo, flags: FilenameFlags): Promise<Dump> {
  return dumpFromInputs(io, inputsLabel(flags), await readInputs(io, flags));
}

/**
 * The inputs read as one dump named `label`. One input is read as it always was; several are
 * each read (every input's problems reported, each naming its file), then merged: an object
 * in two of them is an error naming both (dump/load-dump.ts: mergeDumps). Nothing to read in
 * all of them together is the error of an empty input; one empty file among others is not.
 */
export function dumpFromInputs(io: CliIo, label: string, inputs: readonly InputText[]): Dump {
  const [only] = inputs;
  if (inputs.length === 1 && only !== undefined) return dumpFromText(io, only.source, only.text);
  const dumps: Dump[] = [];
  const problems: string[] = [];
  for (const input of inputs) {
    const loaded = readingInput(input.source, input.text, () => loadDump(input.source, input.text));
    if (loaded.ok) dumps.push(loaded.value);
    else problems.push(loaded.error.message);
  }
  if (problems.length > 0) throw inputError(problems.join('\n'));
  const merged = mergeDumps(label, dumps);
  if (!merged.ok) throw inputError(merged.error.message);
  const empty = noObjectsError(label, merged.value.objects.length, merged.value.skipped);
  if (empty !== undefined) throw empty;
  for (const dump of dumps) {
    const note = skippedNote(dump);
    if (note !== undefined) io.err(`warning: ${note}\n`);
  }
  return merged.value;
}

/**
 * An input with no object at all (an empty file, only comments or `---`, an empty List), or
 * only objects of kinds not read here (a file of Deployments): nothing to answer about, which is
 * a mistake (the wrong file, a `kubectl get > file` that failed) rather than an empty cluster.
 * An answer computed from nothing would look like one about an empty cluster, and a `validate`
 * that checked nothing would pass. kubectl refuses the first case too, with exit code 1:
 * `error: no objects passed to apply` (upstream: staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go).
 * Undefined when there is something to read.
 */
export function noObjectsError(file: string, objects: number, skipped: readonly ManifestIssue[]): CliError | undefined {
  if (objects > 0) return undefined;
  if (skipped.length === 0) return inputError(`${file}: no objects`);
  const kinds = [...new Set(skipped.map((s) => s.kind ?? '?'))].sort();
  return inputError(`${file}: no objects of the kinds read here (${READ_KINDS.join(', ')}), only ${skipped.length} of kinds not modelled here (${kinds.join(', ')})`);
}

/** The kinds the offline commands read (dump/load-dump.ts: dumpOf). */
const READ_KINDS = ['Service', 'EndpointSlice', 'Endpoints', 'Pod', 'Namespace', 'RangeAllocation', 'ServiceCIDR', 'IPAddress'];

/**
 * Runs a reader of the input after refusing a YAML input whose aliases expand it far beyond
 * its size (dump/alias-expansion.ts), and turns a stack overflow into an input error: an input
 * nested thousands of levels deep (`{"a":{"a":...}}`) exhausts the stack of the recursive
 * decoders, which is the input's fault, not a bug to report as one.
 */
export function readingInput<T>(file: string, text: string, read: () => T): T {
  try {
    // JSON (what parseManifests reads as JSON: a text that starts with [ or {) has no aliases.
    if (!/^\s*[[{]/.test(text)) {
      const limit = aliasExpansionLimit(text.length);
      if (aliasExpansionOver(text, limit) !== undefined) {
        throw inputError(`${file}: its YAML aliases expand it past ${limit} characters (${ALIAS_EXPANSION_FACTOR} times its size, and at least ${ALIAS_EXPANSION_FLOOR}): refused as an alias bomb`);
      }
    }
    return read();
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw inputError(`${file}: nested too deeply to be read`);
    throw error;
  }
}

export function dumpFromText(io: CliIo, file: string, text: string): Dump {
  const loaded = readingInput(file, text, () => loadDump(file, text));
  if (!loaded.ok) throw inputError(loaded.error.message);
  const empty = noObjectsError(file, loaded.value.objects.length, loaded.value.skipped);
  if (empty !== undefined) throw empty;
  const note = skippedNote(loaded.value);
  if (note !== undefined) io.err(`warning: ${note}\n`);
  return loaded.value;
}
