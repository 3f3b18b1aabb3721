// `-f` repeated, comma-separated, a directory (with -R its subdirectories) and `-`, through the
// real bin: the inputs are read as one dump, errors name the file they are in.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kubesvc-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const service = (name: string, ip: string, port = 80) => `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: shop}\nspec: {clusterIP: ${ip}, ports: [{port: ${port}}]}\n`;

// manifests/: two Services in two files, a README that is not read, and a subdirectory.
const WEB = write('manifests/web.yaml', service('web', '10.96.0.10'));
const API = write('manifests/api.json', JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'shop' }, spec: { clusterIP: '10.96.0.11', ports: [{ port: 8080 }] } }));
write('manifests/README.md', '# not a manifest\n');
const DB = write('manifests/more/db.yml', service('db', '10.96.0.12', 5432));
const MANIFESTS = join(dir, 'manifests');

describe('-f as kubectl takes it', () => {
  test("a directory: its .json/.yaml/.yml files, in lexical order, without its subdirectories' unless -R", async () => {
    const flat = await runBin(['validate', '-f', MANIFESTS]);
    expect(flat).toMatchObject({ code: 0, stderr: '' });
    expect(flat.stdout).toBe(`${API}: document 1 (Service shop/api): valid\n${WEB}: document 1 (Service shop/web): valid\n2 valid, 0 invalid\n`);
    const deep = await runBin(['validate', '-f', MANIFESTS, '-R', '-o', 'json']);
    expect(deep.code).toBe(0);
    const data = JSON.parse(deep.stdout) as { file: string; objects: { file: string; name: string }[] };
    expect(data.file).toBe(MANIFESTS);
    expect(data.objects.map((o) => [o.file, o.name])).toEqual([
      [API, 'api'],
      [DB, 'db'],
      [WEB, 'web'],
    ]);
  });

  test("-f repeated, comma-separated and - are one dump: env sees the Service of each input; dns reads a subdirectory's with -R", async () => {
    const args = ['-f', `${WEB},${API}`, '-f', '-', '-n', 'shop'];
    const env = await runBin(['env', ...args], { stdin: service('cache', '10.96.0.13', 6379) });
    expect(env.code).toBe(0);
    expect(env.stdout.split('\n').filter((l) => l.endsWith('_SERVICE_HOST=10.96.0.10') || l.endsWith('_SERVICE_HOST=10.96.0.11') || l.endsWith('_SERVICE_HOST=10.96.0.13'))).toEqual([
      'WEB_SERVICE_HOST=10.96.0.10',
      'API_SERVICE_HOST=10.96.0.11',
      'CACHE_SERVICE_HOST=10.96.0.13',
    ]);
    const dns = await runBin(['dns', '-f', MANIFESTS, '-R', 'db.shop.svc.cluster.local']);
    expect(dns.code).toBe(0);
    expect(dns.stdout).toContain('db.shop.svc.cluster.local. 5\tIN\tA\t10.96.0.12');
  });

  test('an object in two inputs is an error naming both (exit 1); a problem in one input names that file', async () => {
    const again = write('elsewhere/web-again.yaml', service('web', '10.96.0.99'));
    const twice = await runBin(['ips', '-f', MANIFESTS, '-f', again]);
    expect(twice).toMatchObject({ code: 1, stdout: '' });
    expect(twice.stderr).toBe(`error: Service shop/web is in both ${WEB} and ${again}: an object may be in one input only\n`);
    const broken = write('broken/b.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: "80"}]}\n');
    const bad = await runBin(['rules', '-f', MANIFESTS, '-f', broken]);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toBe(`error: ${broken}: document 1 (Service x): spec.ports[0].port: expected number, got string "80"\n`);
  });

  test("kubectl's refusals: a directory with nothing to read, - twice (exit 2)", async () => {
    const empty = join(dir, 'empty');
    mkdirSync(join(empty, 'sub'), { recursive: true });
    write('empty/notes.txt', 'x');
    write('empty/sub/deep.yaml', service('deep', '10.96.0.14'));
    const none = await runBin(['trace', '-f', empty, '--to', '10.96.0.14:80']);
    expect(none).toMatchObject({ code: 2, stdout: '', stderr: `error: error reading [${empty}]: recognized file extensions are [.json .yaml .yml]\n` });
    const stdin = await runBin(['doctor', '-f', '-', '-f', '-', '-A']);
    expect(stdin).toMatchObject({ code: 2, stdout: '', stderr: 'error: standard input cannot be used for multiple arguments\n' });
  });
});
