// INV-CLI-BADINPUT: an input that cannot be a cluster dump (empty or only comments, an empty
// List, random binary, a huge line, nesting thousands of levels deep, a YAML alias bomb,
// duplicate keys, only kinds not modelled here, bytes that are not UTF-8) makes every offline
// command exit 1 with an `error:` line naming the input, never exit 0, never a stack trace or
// an internal error, and in bounded time (the YAML reader caps alias expansion). Run in-process
// (runCli with a CliIo of plain functions); the last test sends one input of each sort through
// the real bin.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';
import { hasStackTrace, runBin } from './run-bin.fixtures.js';

interface Captured {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function run(args: readonly string[], input: Uint8Array): Promise<Captured> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    readStdin: () => Promise.resolve(input),
    // `--diff FILE` reads the same input.
    readFile: () => Promise.resolve(input),
    isDirectory: () => Promise.resolve(false),
    readDir: () => Promise.resolve([]),
    stderrIsTTY: false,
    env: {},
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

const COMMANDS: readonly (readonly string[])[] = [
  ['rules', '-f', '-'],
  ['rules', '-f', '-', '--diff', '-'],
  ['trace', '-f', '-', '--to', '10.96.0.1:443'],
  ['dns', '-f', '-', 'kubernetes.default.svc.cluster.local'],
  ['env', '-f', '-', '-n', 'default'],
  ['validate', '-f', '-'],
  ['validate', '-f', '-', '-o', 'json'],
  ['ips', '-f', '-'],
  ['ips', '-f', '-', '--ip', '10.96.0.1'],
  ['doctor', '-f', '-', '-A'],
];

const encoder = new TextEncoder();
const text = (s: string): Uint8Array => encoder.encode(s);
const SERVICE = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  clusterIP: 10.96.0.20\n  ports:\n  - port: 80\n';

/** Nothing to read: whitespace, comments, document markers, null documents, empty Lists. */
const emptyArb = fc.oneof(
  fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n', '# a comment\n', '---\n', '...\n', 'null\n', '~\n'), { maxLength: 12 }).map((parts) => text(parts.join(''))),
  fc.constantFrom('kind: List\napiVersion: v1\nitems: []\n', '{"kind":"List","apiVersion":"v1","items":[]}', '{"kind":"ServiceList","apiVersion":"v1","items":[]}', '\uFEFF', 'null', '---\n---\n').map(text),
);

/** Bytes with a NUL in them: never a manifest. */
const binaryArb = fc.tuple(fc.uint8Array({ maxLength: 2048 }), fc.nat(), fc.uint8Array({ maxLength: 64 })).map(([a, at, b]) => {
  const cut = a.length === 0 ? 0 : at % a.length;
  return Uint8Array.from([...a.slice(0, cut), 0, ...b, ...a.slice(cut)]);
});

/** One huge line (up to 2 MiB): a scalar, a JSON string, a comment alone, or the value of an object without a kind. */
const hugeLineArb = fc.tuple(fc.integer({ min: 64 * 1024, max: 2 * 1024 * 1024 }), fc.constantFrom('x', 'é', '9', ' x')).chain(([n, unit]) => {
  const line = unit.repeat(Math.ceil(n / unit.length));
  return fc.constantFrom(text(line), text(JSON.stringify(line)), text(`# ${line}\n`), text(`metadata: {name: "${line}"}\n`));
});

/** Nesting thousands of levels deep, in YAML (flow and block) and JSON, alone or as a known field's value. */
const deepArb = fc.tuple(fc.integer({ min: 200, max: 20_000 }), fc.integer({ min: 0, max: 6 })).map(([depth, form]) => {
  switch (form) {
    case 0:
      return text(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    case 1:
      return text(`${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`);
    case 2:
      return text(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    case 3:
      return text(`{"kind":"List","apiVersion":"v1","items":[${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}]}`);
    case 4:
      return text(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","labels":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
    case 5:
      // Block nesting: each level indented one more space (quadratic text: kept under 2,000 levels).
      return text(`${Array.from({ length: Math.min(depth, 2000) }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`);
    default:
      return text(`${SERVICE}---\n${'- '.repeat(Math.min(depth, 5000))}x\n`);
  }
});

/**
 * "Billion laughs": each level a list of `fanOut` aliases of the level below. Alone (an object
 * without a kind), as a Service's labels, or after a valid document; or one long string
 * aliased 999 times.
 */
const bombArb = fc.tuple(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 2, max: 16 }), fc.integer({ min: 0, max: 3 })).map(([levels, fanOut, form]) => {
  // One long scalar aliased many times: the YAML reader's alias cap does not count those.
  if (form === 3) return text(`s: &s ${'x'.repeat(70_000 * levels)}\nt: [${Array.from({ length: 999 }, () => '*s').join(', ')}]\n`);
  const lines = [`l0: &l0 [${Array.from({ length: fanOut }, () => '"lol"').join(', ')}]`];
  for (let i = 1; i <= levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: fanOut }, () => `*l${i - 1}`).join(', ')}]`);
  const anchors = lines.join('\n');
  if (form === 0) return text(`${anchors}\n`);
  const labels = `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    ${anchors.split('\n').join('\n    ').replace(/: &l(\d+) \[/g, ': &l$1 [')}\n  labels: *l${levels}\n`;
  return text(form === 1 ? labels : `${SERVICE}---\n${anchors}\n`);
});

/** A Service with one key given twice, at the top, in metadata, or in a port. */
const duplicateKeyArb = fc.constantFrom(
  `${SERVICE}kind: Service\n`,
  'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  name: api\n  namespace: shop\nspec:\n  ports:\n  - port: 80\n',
  'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  ports:\n  - port: 80\n    port: 81\n',
  `${SERVICE}---\napiVersion: v1\nkind: Service\nmetadata: {name: a, name: b}\n`,
).map(text);

/** Only kinds not modelled here (or a modelled kind in another group), in a stream or a List. */
const wrongKindsArb = fc
  .tuple(
    fc.array(fc.constantFrom(['apps/v1', 'StatefulSet'], ['v1', 'ConfigMap'], ['v1', 'Secret'], ['networking.k8s.io/v1', 'Ingress'], ['example.com/v1', 'Widget'], ['apps/v1', 'Service'], ['v2', 'Pod']), { minLength: 1, maxLength: 5 }),
    fc.boolean(),
  )
  .map(([kinds, asList]) => {
    const docs = kinds.map(([apiVersion, kind], i) => ({ apiVersion, kind, metadata: { name: `o${i}`, namespace: 'shop' } }));
    return text(asList ? JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }) : docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  });

/** A valid Service with bytes that are not UTF-8 put in its name, or Latin-1 text. */
const notUtf8Arb = fc.tuple(fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf5, 0xfe, 0xff), fc.boolean()).map(([byte, latin1]) => {
  if (latin1) return Uint8Array.from([...text('apiVersion: v1\nkind: Service\nmetadata: {name: caf'), 0xe9, ...text(', namespace: shop}\n')]);
  const at = SERVICE.indexOf('web') + 1;
  return Uint8Array.from([...text(SERVICE.slice(0, at)), byte, ...text(SERVICE.slice(at))]);
});

const badInputArb = fc.oneof(
  { arbitrary: emptyArb.map((b) => ['empty', b] as const), weight: 2 },
  { arbitrary: binaryArb.map((b) => ['binary', b] as const), weight: 2 },
  { arbitrary: hugeLineArb.map((b) => ['huge line', b] as const), weight: 1 },
  { arbitrary: deepArb.map((b) => ['deep', b] as const), weight: 2 },
  { arbitrary: bombArb.map((b) => ['alias bomb', b] as const), weight: 2 },
  { arbitrary: duplicateKeyArb.map((b) => ['duplicate key', b] as const), weight: 1 },
  { arbitrary: wrongKindsArb.map((b) => ['wrong kinds', b] as const), weight: 1 },
  { arbitrary: notUtf8Arb.map((b) => ['not UTF-8', b] as const), weight: 1 },
);

/** Each command with a second input, a file holding the same bytes: `-f - -f bad.yaml`. */
const TWO_INPUTS: readonly (readonly string[])[] = COMMANDS.map((c) => [...c.slice(0, 3), '-f', 'bad.yaml', ...c.slice(3)]);

function expectRefused(args: readonly string[], r: Captured, named = /(^|\n)error: -: \S/): void {
  expect(hasStackTrace(r.err)).toBe(false);
  expect(r.err).not.toContain('internal error');
  expect(r.code).toBe(1);
  expect(r.err).toMatch(named);
  // Only validate answers on stdout when the input is bad (its report); the others print nothing there.
  if (args[0] !== 'validate') expect(r.out).toBe('');
}

describe('INV-CLI-BADINPUT', () => {
  test.prop([fc.constantFrom(...COMMANDS), badInputArb], { interruptAfterTimeLimit: 100_000 })(
    'INV-CLI-BADINPUT: an input that cannot be a dump makes every offline command exit 1 with an error line naming it, never a stack trace',
    async (args, [, input]) => {
      expectRefused(args, await run(args, input));
    },
  );

  test.prop([fc.constantFrom(...TWO_INPUTS), badInputArb], { interruptAfterTimeLimit: 100_000 })(
    'INV-CLI-BADINPUT: several inputs (-f - -f FILE), each bad, make every offline command exit 1 with an error line naming an input or all of them, never a stack trace',
    async (args, [, input]) => {
      expectRefused(args, await run(args, input), /(^|\n)error: (-|-,bad\.yaml|bad\.yaml): \S/);
    },
  );

  it('INV-CLI-BADINPUT: the messages say what is wrong, the same way in every command', async () => {
    const BOMB = /^error: -: its YAML aliases expand it past 67108864 characters \(10 times its size, and at least 67108864\): refused as an alias bomb$/m;
    const cases: readonly (readonly [string, Uint8Array, RegExp])[] = [
      ['empty', text(''), /^error: -: no objects$/m],
      ['comments', text('# nothing\n---\n'), /^error: -: no objects$/m],
      ['empty List', text('kind: List\napiVersion: v1\nitems: []\n'), /^error: -: no objects$/m],
      ['wrong kinds', text('apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d}\n'), /^error: -: no objects of the kinds read here \(Service, EndpointSlice, Endpoints, Pod, Namespace, RangeAllocation, ServiceCIDR, IPAddress\), only 1 of kinds not modelled here \(StatefulSet\)$/m],
      ['alias bomb', text(`a: &a ["x","x","x","x","x","x","x","x","x"]\n${'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array.from({ length: 9 }, () => `*${'abcdefghij'[i] ?? ''}`).join(',')}]`).join('\n')}\n`), BOMB],
      // Under the YAML reader's cap (aliases of a scalar are not counted), over the size bound.
      ['string bomb', text(`a: &a ${'x'.repeat(100_000)}\nb: [${Array.from({ length: 999 }, () => '*a').join(',')}]\n`), BOMB],
      ['small alias bomb', text(`a: &a ["x","x","x","x","x","x","x","x","x"]\n${'bcdef'.split('').map((c, i) => `${c}: &${c} [${Array.from({ length: 9 }, () => `*${'abcdef'[i] ?? ''}`).join(',')}]`).join('\n')}\n`), /^error: -: document 1: YAML: Excessive alias count indicates a resource exhaustion attack$/m],
      ['deep JSON', text(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`), /^error: -: nested too deeply to be read$/m],
      ['not UTF-8', Uint8Array.from([...text('kind: Service\nmetadata: {name: w'), 0xff, ...text('b}\n')]), /^error: -: not UTF-8 text: byte 0xff at line 2, byte 19 of the line$/m],
    ];
    for (const args of COMMANDS) {
      for (const [what, input, message] of cases) {
        const r = await run(args, input);
        if (args[0] === 'validate' && what === 'small alias bomb') {
          // A document that does not decode is part of validate's report, and the verdict goes to stderr.
          expect(r.out).toContain('YAML: Excessive alias count indicates a resource exhaustion attack');
          expect(r.err).toBe('error: -: 1 of 1 object invalid\n');
        } else {
          expect(r.err, `${args.join(' ')} on ${what}`).toMatch(message);
        }
        expectRefused(args, r);
      }
    }
  });
});

it('INV-CLI-BADINPUT, through the bin: one input of each sort, each offline command, explore too', async () => {
  const inputs: readonly Uint8Array[] = [
    text(''),
    Uint8Array.from([0, 255, 1, 2, 3, 0x0a, 0x7f]),
    text(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    text(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`),
    text(`a: &a ["x","x","x","x","x","x","x","x"]\n${'bcdefghijk'.split('').map((c, i) => `${c}: &${c} [${Array.from({ length: 8 }, () => `*${'abcdefghijk'[i] ?? ''}`).join(',')}]`).join('\n')}\n`),
    text('apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d}\n'),
    Uint8Array.from([...text('kind: Service\nmetadata: {name: w'), 0xc0, ...text('b}\n')]),
  ];
  const commands: readonly (readonly string[])[] = [...COMMANDS.filter((c) => c[0] !== 'rules' || c.length === 3), ['explore', '-f', '-', '--port', '0']];
  // Each command once, each sort of input once or more: command i gets input i (mod their count).
  for (const [i, args] of commands.entries()) {
    const r = await runBin(args, { stdin: inputs[i % inputs.length] ?? new Uint8Array(), timeoutMs: 60_000 });
    expectRefused(args, { code: r.code ?? -1, out: r.stdout, err: r.stderr });
  }
}, 300_000);
