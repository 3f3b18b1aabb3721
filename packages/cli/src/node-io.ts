// The CliIo of the real process.
import { readFile } from 'node:fs/promises';
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
    stderrIsTTY: process.stderr.isTTY === true,
    progressStream: process.stderr,
    env: process.env,
  };
}
