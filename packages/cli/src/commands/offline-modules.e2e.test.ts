// The offline commands do not load the runtime: SQLite, the etcd and gRPC clients and the
// certificate generator are `kubesvc up`'s, and loading them cost every `kubesvc rules` about
// 0.3 s of CPU (docs/performance.md). A module-resolution hook given to node (--import) names
// every module the bin resolves; commander, which every command uses, shows the hook works.
// The same hook tells which main module the bin of a checkout ran: the TypeScript sources or
// the build (bin/checkout-build.mjs decides).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { checkoutBuildIsFresh } from '../../bin/checkout-build.mjs';
import { BIN, FIXTURES, REPO_ROOT, runCommand } from '../run-bin.fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesvc-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// packages/cli/src/main.ts or dist/main.js tells which of the two the bin ran (checkout-build.test.ts).
const WATCHED = /node_modules\/(commander|better-sqlite3|etcd3|@grpc\/grpc-js|selfsigned)\/|packages\/runtime\/(src|dist)\/|packages\/cli\/(src\/main\.ts|dist\/main\.js)/;
const MAIN = /packages\/cli\/(src\/main\.ts|dist\/main\.js)/;

function hookFiles(): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (${WATCHED.toString()}.test(result.url)) process.stderr.write('resolved ' + result.url + '\\n');
  return result;
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)});\n`);
  return register;
}

test('kubesvc rules loads commander but none of the runtime, SQLite, etcd, gRPC or certificate modules', async () => {
  const run = await runCommand(process.execPath, ['--import', hookFiles(), BIN, 'rules', '-f', join(FIXTURES, 'kubernetes-2017.yaml')], { timeoutMs: 60_000 });
  expect(run.code).toBe(0);
  const resolved = run.stderr.split('\n').filter((l) => l.startsWith('resolved '));
  expect(resolved.some((l) => l.includes('/commander/'))).toBe(true);
  expect(resolved.filter((l) => !l.includes('/commander/') && !MAIN.test(l))).toEqual([]);
});

async function mainRun(env: Record<string, string | undefined>): Promise<string[]> {
  const run = await runCommand(process.execPath, ['--import', hookFiles(), BIN, 'version'], { timeoutMs: 60_000, env });
  expect(run.code, run.stderr).toBe(0);
  return run.stderr
    .split('\n')
    .filter((l) => MAIN.test(l))
    .map((l) => (MAIN.exec(l) ?? [''])[0]);
}

test('in a checkout the bin runs dist/ only while every package is built after its sources, and KUBESVC_FROM_SOURCES=1 keeps to the sources', async () => {
  expect(await mainRun({ KUBESVC_FROM_SOURCES: '1' })).toEqual(['packages/cli/src/main.ts']);
  // Which one depends on this checkout's state, read the same way the bin reads it.
  const expected = checkoutBuildIsFresh(pathToFileURL(REPO_ROOT)) ? 'packages/cli/dist/main.js' : 'packages/cli/src/main.ts';
  expect(await mainRun({ KUBESVC_FROM_SOURCES: undefined })).toEqual([expected]);
});
