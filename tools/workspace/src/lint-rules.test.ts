// Proves the architecture lint rules of eslint.config.mjs with fixtures: each fixture is a
// source text placed (virtually) at a path in the workspace, linted with the real config.
// Every rule has at least one fixture that must fail, and controls that must pass, so that
// a rule that silently stops applying (or applies too widely) fails this suite.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createProjectGraphAsync, readCachedProjectGraph } from '@nx/devkit';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, test } from 'vitest';
import { workspaceRoot } from './workspace.js';

interface Fixture {
  readonly name: string;
  readonly file: string;
  readonly code: string;
  readonly rule: string;
  readonly message: RegExp;
}

const pure = 'packages/ipallocator/src/fixture.ts';

const mustFail: Fixture[] = [
  { name: 'node:fs import', file: pure, code: "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n", rule: 'no-restricted-imports', message: /pure packages do no I\/O/ },
  { name: 'bare fs import', file: pure, code: "import { readFileSync } from 'fs';\nexport const read = readFileSync;\n", rule: 'no-restricted-imports', message: /pure packages do no I\/O/ },
  { name: 'bare subpath builtin', file: pure, code: "import { posix } from 'path/posix';\nexport const p = posix;\n", rule: 'no-restricted-imports', message: /no I\/O/ },
  { name: 're-export of a builtin', file: pure, code: "export { createServer } from 'node:net';\n", rule: 'no-restricted-imports', message: /no I\/O/ },
  { name: 'dynamic node: import', file: pure, code: "export const load = () => import('node:net');\n", rule: 'no-restricted-syntax', message: /no I\/O/ },
  { name: 'dynamic bare builtin import', file: pure, code: "export const load = () => import('fs/promises');\n", rule: 'no-restricted-syntax', message: /no I\/O/ },
  { name: 'Date.now()', file: pure, code: 'export const now = () => Date.now();\n', rule: 'no-restricted-properties', message: /no clock/ },
  { name: 'new Date()', file: pure, code: 'export const now = () => new Date();\n', rule: 'no-restricted-syntax', message: /no clock/ },
  { name: 'Date() as a function', file: pure, code: 'export const now = () => Date();\n', rule: 'no-restricted-syntax', message: /no clock/ },
  { name: 'performance.now()', file: pure, code: 'export const now = () => performance.now();\n', rule: 'no-restricted-globals', message: /no clock/ },
  { name: 'Math.random()', file: pure, code: 'export const pick = () => Math.random();\n', rule: 'no-restricted-properties', message: /no ambient randomness/ },
  { name: 'crypto.randomUUID()', file: pure, code: 'export const id = () => crypto.randomUUID();\n', rule: 'no-restricted-globals', message: /no ambient randomness/ },
  { name: 'setTimeout', file: pure, code: 'export const later = (f: () => void) => setTimeout(f, 10);\n', rule: 'no-restricted-globals', message: /no timers/ },
  { name: 'setInterval', file: pure, code: 'export const tick = (f: () => void) => setInterval(f, 10);\n', rule: 'no-restricted-globals', message: /no timers/ },
  { name: 'globalThis.setTimeout', file: pure, code: 'export const later = (f: () => void) => globalThis.setTimeout(f, 10);\n', rule: 'no-restricted-properties', message: /no timers/ },
  { name: 'process.env', file: pure, code: "export const cidr = process.env['SERVICE_CIDR'];\n", rule: 'no-restricted-globals', message: /no process/ },
  { name: 'globalThis.process', file: pure, code: 'export const p = globalThis.process;\n', rule: 'no-restricted-properties', message: /no process/ },
  { name: 'Buffer', file: pure, code: "export const b = Buffer.from('x');\n", rule: 'no-restricted-globals', message: /Uint8Array/ },
  { name: 'default export', file: pure, code: 'export default 1;\n', rule: 'no-restricted-syntax', message: /no default exports/ },
  { name: 'default export in a shell package', file: 'packages/runtime/src/fixture.ts', code: 'export default 1;\n', rule: 'no-restricted-syntax', message: /no default exports/ },
  // Every shell package depends on the pure ones, so an upward import is first a cycle.
  { name: 'pure importing shell', file: pure, code: "import * as runtime from '@kubesvc/runtime';\nexport const r = runtime;\n", rule: '@nx/enforce-module-boundaries', message: /Circular dependency between "@kubesvc\/ipallocator" and "@kubesvc\/runtime"/ },
  { name: 'pure source importing testkit', file: pure, code: "import * as kit from '@kubesvc/testkit';\nexport const k = kit;\n", rule: '@nx/enforce-module-boundaries', message: /"type:pure" can only depend on libs tagged with "type:pure"/ },
  { name: 'shell source importing testkit', file: 'packages/runtime/src/fixture.ts', code: "import * as kit from '@kubesvc/testkit';\nexport const k = kit;\n", rule: '@nx/enforce-module-boundaries', message: /"type:shell" can only depend on libs tagged with "type:pure", "type:shell"/ },
  { name: 'model importing a sibling model', file: pure, code: "import * as ipt from '@kubesvc/proxy-iptables';\nexport const i = ipt;\n", rule: '@nx/enforce-module-boundaries', message: /"layer:model" can only depend on libs tagged with "layer:api"/ },
  { name: 'store importing a runtime-layer package', file: 'packages/store/src/fixture.ts', code: "import * as e from '@kubesvc/explorer';\nexport const x = e;\n", rule: '@nx/enforce-module-boundaries', message: /"layer:store" can only depend on libs tagged with "layer:api", "layer:proxy", "layer:model", "layer:controller"/ },
  { name: 'apiserver importing a runtime-layer package', file: 'packages/apiserver/src/fixture.ts', code: "import * as e from '@kubesvc/explorer';\nexport const x = e;\n", rule: '@nx/enforce-module-boundaries', message: /"layer:apiserver" can only depend on libs tagged with "layer:api", "layer:proxy", "layer:model", "layer:controller", "layer:store"/ },
  { name: 'the proxy core importing a model', file: 'packages/proxy/src/fixture.ts', code: "import * as ip from '@kubesvc/ipallocator';\nexport const x = ip;\n", rule: '@nx/enforce-module-boundaries', message: /"layer:proxy" can only depend on libs tagged with "layer:api"/ },
  { name: 'api-types importing a model', file: 'packages/api-types/src/fixture.ts', code: "import * as a from '@kubesvc/ipallocator';\nexport const x = a;\n", rule: '@nx/enforce-module-boundaries', message: /Circular dependency between "@kubesvc\/api-types" and "@kubesvc\/ipallocator"/ },
  // testkit depends on api-types (its arbitraries build api-types objects), so this import
  // closes a cycle, and that is what the rule reports first.
  { name: 'api-types importing the testkit outside tests', file: 'packages/api-types/src/fixture.ts', code: "import * as kit from '@kubesvc/testkit';\nexport const k = kit;\n", rule: '@nx/enforce-module-boundaries', message: /Circular dependency between "@kubesvc\/api-types" and "@kubesvc\/testkit"/ },
  { name: 'the node agent importing the lab outside its netns entry', file: 'packages/node-agent/src/fixture.ts', code: "import { Lab } from '@kubesvc/netlab';\nexport const l = Lab;\n", rule: 'no-restricted-imports', message: /@kubesvc\/netlab is loaded only under packages\/node-agent\/src\/netns\// },
  { name: 'a type of the lab outside the netns entry', file: 'packages/node-agent/src/node-agent.ts', code: "import type { Lab } from '@kubesvc/netlab';\nexport type L = Lab;\n", rule: 'no-restricted-imports', message: /@kubesvc\/netlab is loaded only under/ },
  { name: 'the cli importing the lab', file: 'packages/cli/src/fixture.ts', code: "import { Lab } from '@kubesvc/netlab';\nexport const l = Lab;\n", rule: 'no-restricted-imports', message: /take the lab as the node agent's netns data plane/ },
  { name: 'controller importing runtime', file: 'packages/bootstrap-controller/src/fixture.ts', code: "import * as r from '@kubesvc/runtime';\nexport const x = r;\n", rule: '@nx/enforce-module-boundaries', message: /Circular dependency between "@kubesvc\/bootstrap-controller" and "@kubesvc\/runtime"/ },
];

const mustPass: Array<Omit<Fixture, 'rule' | 'message'>> = [
  { name: 'time and randomness passed in', file: pure, code: 'export const at = (now: number) => new Date(now).toISOString();\nexport const pick = (next: () => number, n: number) => Math.floor(next() * n);\n' },
  { name: 'node:fs in a node adapter of a pure package', file: 'packages/discovery/src/node/server.ts', code: "import { createSocket } from 'node:dgram';\nexport const open = () => createSocket('udp4');\nexport const now = () => Date.now();\n" },
  { name: 'node:fs, clock and process in runtime', file: 'packages/runtime/src/store.ts', code: "import { readFileSync } from 'node:fs';\nexport const read = () => readFileSync(process.argv[1] ?? '', 'utf8');\nexport const now = () => Date.now();\n" },
  { name: 'node:fs in cli', file: 'packages/cli/src/main.ts', code: "import { writeFileSync } from 'node:fs';\nexport const write = writeFileSync;\n" },
  { name: 'testkit and the clock in a pure package test', file: 'packages/ipallocator/src/fixture.test.ts', code: "import { readPropertyConfig } from '@kubesvc/testkit';\nexport const c = readPropertyConfig({});\nexport const t = Date.now();\n" },
  { name: 'testkit in a shell package test', file: 'packages/runtime/src/fixture.test.ts', code: "import { readPropertyConfig } from '@kubesvc/testkit';\nexport const c = readPropertyConfig({});\n" },
  { name: 'testkit in a test fixtures file (left out of the build with the tests)', file: 'packages/runtime/src/fixture.fixtures.ts', code: "import { readPropertyConfig } from '@kubesvc/testkit';\nexport const c = readPropertyConfig({});\n" },
  { name: 'model importing api-types', file: pure, code: "import * as api from '@kubesvc/api-types';\nexport const a = api;\n" },
  { name: 'a model importing the proxy core', file: 'packages/proxy-userspace/src/fixture.ts', code: "import * as proxy from '@kubesvc/proxy';\nexport const p = proxy;\n" },
  { name: 'controller importing the allocators and reconcilers', file: 'packages/bootstrap-controller/src/fixture.ts', code: "import * as ip from '@kubesvc/ipallocator';\nimport * as port from '@kubesvc/portallocator';\nimport * as rec from '@kubesvc/reconcilers';\nexport const all = [ip, port, rec];\n" },
  { name: 'runtime importing the controller and models', file: 'packages/runtime/src/fixture.ts', code: "import * as boot from '@kubesvc/bootstrap-controller';\nimport * as dns from '@kubesvc/discovery';\nexport const all = [boot, dns];\n" },
  { name: 'runtime importing the store', file: 'packages/runtime/src/fixture.ts', code: "import * as store from '@kubesvc/store';\nexport const s = store;\n" },
  { name: 'apiserver importing the store and the allocators', file: 'packages/apiserver/src/fixture.ts', code: "import * as store from '@kubesvc/store';\nimport * as ip from '@kubesvc/ipallocator';\nexport const all = [store, ip];\n" },
  { name: 'runtime importing the apiserver', file: 'packages/runtime/src/fixture.ts', code: "import * as api from '@kubesvc/apiserver';\nexport const a = api;\n" },
  { name: 'cli importing runtime', file: 'packages/cli/src/fixture.ts', code: "import * as runtime from '@kubesvc/runtime';\nexport const r = runtime;\n" },
  { name: 'the lab in the netns entry of the node agent', file: 'packages/node-agent/src/netns/netns-dataplane.ts', code: "import { Lab } from '@kubesvc/netlab';\nexport const l = Lab;\n" },
  { name: 'the pod network in the netns folder of the node agent', file: 'packages/node-agent/src/netns/pod-network-dataplane.ts', code: "import { PodNetwork } from '@kubesvc/netlab';\nexport const n = PodNetwork;\n" },
  { name: 'the lab in a node agent test', file: 'packages/node-agent/src/fixture.test.ts', code: "import { BACKEND_TCP_PORT } from '@kubesvc/netlab';\nexport const p = BACKEND_TCP_PORT;\n" },
  { name: 'the lab in a cli test', file: 'packages/cli/src/fixture.test.ts', code: "import { leftovers } from '@kubesvc/netlab';\nexport const l = leftovers;\n" },
  { name: 'the cli loading the netns data plane', file: 'packages/cli/src/up/fixture.ts', code: "import { netnsDataplane } from '@kubesvc/node-agent/netns';\nexport const d = netnsDataplane;\n" },
];

let eslint: ESLint;

async function lint(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: join(workspaceRoot, file) });
  if (result === undefined) throw new Error(`ESLint returned no result for ${file}`);
  return result.messages;
}

beforeAll(async () => {
  // The module-boundaries rule reads nx's cached project graph and is *skipped* (with only a
  // warning) when there is none. Under nx the graph is cached and fresh; run alone, build it.
  // Either way the fixtures below fail if the rule does not really run.
  try {
    readCachedProjectGraph();
  } catch {
    await createProjectGraphAsync({ exitOnError: false });
  }
  eslint = new ESLint({ cwd: workspaceRoot });
});

describe('lint fixtures that must fail', () => {
  test.each(mustFail.map((f) => [f.name, f] as const))('%s', async (_name, fixture) => {
    const messages = await lint(fixture.file, fixture.code);
    const errors = messages.filter((m) => m.severity === 2);
    expect(errors.map((m) => m.ruleId)).toContain(fixture.rule);
    expect(errors.find((m) => m.ruleId === fixture.rule)?.message).toMatch(fixture.message);
  });
});

describe('lint fixtures that must pass', () => {
  test.each(mustPass.map((f) => [f.name, f] as const))('%s', async (_name, fixture) => {
    const messages = await lint(fixture.file, fixture.code);
    expect(messages.map((m) => `${m.ruleId}: ${m.message}`)).toEqual([]);
  });
});

test('the eslint command nx runs fails on a pure package that reads the clock or imports node:fs', () => {
  // The same CLI that the inferred `lint` target runs, reading the source from stdin.
  const eslintBin = join(workspaceRoot, 'node_modules/eslint/bin/eslint.js');
  const run = spawnSync(
    process.execPath,
    [eslintBin, '--stdin', '--stdin-filename', 'packages/portallocator/src/clock.ts'],
    { cwd: workspaceRoot, input: "import { readFileSync } from 'node:fs';\nexport const stamp = () => `${Date.now()}${readFileSync.name}`;\n", encoding: 'utf8' },
  );
  expect(run.status).toBe(1);
  expect(run.stdout).toMatch(/'node:fs' import is restricted/);
  expect(run.stdout).toMatch(/'Date\.now' is restricted/);
  // ...and the same text passes in the runtime package.
  const ok = spawnSync(process.execPath, [eslintBin, '--stdin', '--stdin-filename', 'packages/runtime/src/clock.ts'], {
    cwd: workspaceRoot,
    input: "import { readFileSync } from 'node:fs';\nexport const stamp = () => `${Date.now()}${readFileSync.name}`;\n",
    encoding: 'utf8',
  });
  expect(ok.stdout).toBe('');
  expect(ok.status).toBe(0);
});

test('the pure-package rules are scoped from the nx tags, so every type:pure package is covered', () => {
  const listed = execFileSync(
    process.execPath,
    ['-e', "import('./eslint.config.mjs').then(m => console.log(JSON.stringify(m.default.find(c => c.rules?.['no-restricted-imports'])?.files)))"],
    { cwd: workspaceRoot, encoding: 'utf8' },
  );
  expect(JSON.parse(listed)).toEqual(
    ['api-types', 'bootstrap-controller', 'controllers', 'discovery', 'ipallocator', 'portallocator', 'proxy', 'proxy-iptables', 'proxy-nftables', 'proxy-userspace', 'reconcilers'].map(
      (name) => `packages/${name}/src/**/*.ts`,
    ),
  );
});
