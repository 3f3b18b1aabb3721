// The CliIo of the real process.
import { readdir, readFile, stat } from 'node:fs/promises';
import type { CliIo } from './cli-io.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

export function nodeIo(): CliIo {
  return {
    out: (text) => {
      process.stdout.write(text);
    },
    err: (text) => {
      process.stderr.write(text);
    },
    readStdin: () => readAll(process.stdin),
    readFile: (path) => readFile(path),
    isDirectory: async (path) => (await stat(path)).isDirectory(),
    readDir: async (path) => (await readdir(path, { withFileTypes: true })).map((entry) => ({ name: entry.name, directory: entry.isDirectory() })),
    stderrIsTTY: process.stderr.isTTY === true,
    progressStream: process.stderr,
    env: process.env,
  };
}
