// ESLint flat config for the whole workspace. The rules that matter most here are the
// architecture rules: the dependency direction between packages (nx tags) and the
// pure-package contract of docs/architecture.md (no I/O, clock, randomness, timers or process
// outside src/node/). Both are proven by fixtures in tools/workspace/src/lint-rules.test.ts.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import nx from '@nx/eslint-plugin';

const root = new URL('.', import.meta.url);

/** Package folder names under packages/ whose nx tags include `tag`. Tags live in package.json. */
function packagesTagged(tag) {
  const dir = new URL('packages/', root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => {
    const manifest = new URL(`packages/${name}/package.json`, root);
    if (!existsSync(manifest)) return false;
    const tags = JSON.parse(readFileSync(manifest, 'utf8')).nx?.tags ?? [];
    return tags.includes(tag);
  });
}

const purePackages = packagesTagged('type:pure');
const testFiles = ['**/*.test.ts', '**/*.test.mts'];

// Layers follow docs/architecture.md ("How the rules are enforced"): api-types <- the proxy
// core <- models <- controllers <- store <- apiserver <- runtime <- node-agent <- cli.
const layerConstraints = (extra) => [
  { sourceTag: 'layer:api', onlyDependOnLibsWithTags: ['layer:api', ...extra] },
  { sourceTag: 'layer:proxy', onlyDependOnLibsWithTags: ['layer:api', ...extra] },
  { sourceTag: 'layer:model', onlyDependOnLibsWithTags: ['layer:api', 'layer:proxy', ...extra] },
  { sourceTag: 'layer:controller', onlyDependOnLibsWithTags: ['layer:api', 'layer:proxy', 'layer:model', ...extra] },
  { sourceTag: 'layer:store', onlyDependOnLibsWithTags: ['layer:api', 'layer:proxy', 'layer:model', 'layer:controller', ...extra] },
  {
    sourceTag: 'layer:apiserver',
    onlyDependOnLibsWithTags: ['layer:api', 'layer:proxy', 'layer:model', 'layer:controller', 'layer:store', ...extra],
  },
  {
    sourceTag: 'layer:runtime',
    onlyDependOnLibsWithTags: ['layer:api', 'layer:proxy', 'layer:model', 'layer:controller', 'layer:store', 'layer:apiserver', ...extra],
  },
  {
    sourceTag: 'layer:node',
    onlyDependOnLibsWithTags: [
      'layer:api',
      'layer:proxy',
      'layer:model',
      'layer:controller',
      'layer:store',
      'layer:apiserver',
      'layer:runtime',
      ...extra,
    ],
  },
  {
    sourceTag: 'layer:cli',
    onlyDependOnLibsWithTags: [
      'layer:api',
      'layer:proxy',
      'layer:model',
      'layer:controller',
      'layer:store',
      'layer:apiserver',
      'layer:runtime',
      'layer:node',
      ...extra,
    ],
  },
];

const boundaries = (testkitAllowed) => {
  const extra = testkitAllowed ? ['type:testkit'] : [];
  return [
    'error',
    {
      allow: [],
      enforceBuildableLibDependency: false,
      // The testkit builds arbitraries from the pure packages' types, and their tests use
      // the testkit: a cycle that is fine in tests and nowhere else (docs/architecture.md).
      ignoredCircularDependencies: testkitAllowed ? [['@kubesvc/testkit', 'tag:type:pure']] : [],
      depConstraints: [
        { sourceTag: 'type:pure', onlyDependOnLibsWithTags: ['type:pure', ...extra] },
        { sourceTag: 'type:shell', onlyDependOnLibsWithTags: ['type:pure', 'type:shell', ...extra] },
        { sourceTag: 'type:testkit', onlyDependOnLibsWithTags: ['type:pure', 'type:testkit'] },
        { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['*'] },
        ...layerConstraints(extra),
      ],
    },
  ];
};

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
// esquery regex literals cannot contain '/', so a '.' stands for it (fs/promises -> fs.promises).
const builtinPattern = `/^(node:.*|${nodeBuiltins.map((m) => m.replace(/\//g, '.')).join('|')})$/`;
const pureMessage = 'pure packages do no I/O: Node modules belong in src/node/, runtime or cli (docs/architecture.md, the pure-package contract)';
const clockMessage = 'pure packages take time as an argument (`now`, milliseconds): no clock';
const randomMessage = 'pure packages take a seeded generator as an argument: no ambient randomness';
const timerMessage = 'pure packages ask the runtime for a tick (an action): no timers';
// The network-namespace lab needs root and builds a whole node: the node agent takes it as a
// data plane (and the pod network of `--dataplane netns`), and one folder, the
// `@kubesvc/node-agent/netns` entry, is where it is loaded (docs/architecture.md, the node
// agent). The lab's own package and tests are exempt.
const netlabEntry = 'packages/node-agent/src/netns/**';
const netlabMessage = `@kubesvc/netlab is loaded only under packages/node-agent/src/netns/: take the lab as the node agent's netns data plane (@kubesvc/node-agent/netns)`;

export default [
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/out-tsc/**',
      '**/test-results/**',
      '**/coverage/**',
      '.nx/**',
      'bench/results/**',
      // The explorer's built page (Vite's minified output).
      'packages/explorer/ui/**',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
  {
    // Each project's vitest.config.ts (and stryker.config.mjs) is a short call into the shared
    // root configuration.
    files: ['**/vitest.config.ts', '**/stryker.config.mjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // Tests may use the testkit, and so may their fixtures (`*.fixtures.ts`, which the build
    // and the tarballs leave out with the tests); nothing else may.
    files: [...testFiles, '**/*.fixtures.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(true) },
  },
  {
    // docs/architecture.md: no default exports in package sources (config files need theirs).
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'no default exports (docs/architecture.md, how the rules are enforced)' },
      ],
    },
  },
  {
    files: purePackages.map((name) => `packages/${name}/src/**/*.ts`),
    ignores: ['packages/*/src/node/**', ...testFiles],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: pureMessage })),
          patterns: [{ group: ['node:*'], message: pureMessage }],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'pure packages take configuration as arguments: no process' },
        { name: 'setTimeout', message: timerMessage },
        { name: 'setInterval', message: timerMessage },
        { name: 'setImmediate', message: timerMessage },
        { name: 'clearTimeout', message: timerMessage },
        { name: 'clearInterval', message: timerMessage },
        { name: 'clearImmediate', message: timerMessage },
        { name: 'queueMicrotask', message: timerMessage },
        { name: 'performance', message: clockMessage },
        { name: 'crypto', message: randomMessage },
        { name: 'require', message: pureMessage },
        { name: 'Buffer', message: 'pure packages use Uint8Array, not the Node Buffer global' },
        { name: '__dirname', message: pureMessage },
        { name: '__filename', message: pureMessage },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: clockMessage },
        { object: 'Math', property: 'random', message: randomMessage },
        { object: 'globalThis', property: 'process', message: 'no process in pure packages' },
        { object: 'globalThis', property: 'setTimeout', message: timerMessage },
        { object: 'globalThis', property: 'setInterval', message: timerMessage },
        { object: 'globalThis', property: 'performance', message: clockMessage },
        { object: 'globalThis', property: 'crypto', message: randomMessage },
      ],
      // A later block's options replace an earlier block's for the same rule, so the
      // default-export ban is repeated here.
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'no default exports (docs/architecture.md, how the rules are enforced)' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: clockMessage },
        { selector: "CallExpression[callee.name='Date']", message: clockMessage },
        {
          selector: `ImportExpression[source.type='Literal'][source.value=${builtinPattern}]`,
          message: pureMessage,
        },
      ],
    },
  },
  {
    // After the pure block, and not over the pure packages' sources, whose no-restricted-imports
    // it would replace: they cannot reach the lab anyway (type:pure depends on type:pure only).
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    ignores: [netlabEntry, 'packages/netlab/**', ...testFiles, ...purePackages.map((name) => `packages/${name}/src/**/*.ts`)],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@kubesvc/netlab', message: netlabMessage }],
          patterns: [{ group: ['@kubesvc/netlab/*'], message: netlabMessage }],
        },
      ],
    },
  },
];
