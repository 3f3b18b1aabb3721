// `kubesvc up --tables-files-interval`: each node's whole-table files (rules.txt and
// rules.save.txt, ruleset.nft) are written at the first sync and then at most once per
// interval, while the last sync's text is written at every sync; on the in-process node and on
// the nodes whose kube-proxies run in worker threads. A value that is not a duration is a usage
// error. Real bin, real kubectl.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { kubectl as kubectlWith, startUp, until, e2eScope } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-tables-files-');

const mtimeMs = (path: string): number => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

const read = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

describe('kubesvc up --tables-files-interval', () => {
  it('refuses a value that is not a duration (the README shows it, and readme.test.ts runs it)', async () => {
    const run = await runBin(['up', '--data-dir', tempDir(), '--tables-files-interval', 'ten']);
    const message = 'error: --tables-files-interval must be a duration, such as 30s or 0, not "ten"';
    expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 2, stderr: message });
  });

  for (const mode of ['iptables', 'nftables'] as const) {
    it(`${mode}: with an hour's interval, the syncs after a new Service write every node's last sync but not its table files, which hold the first sync's tables`, async () => {
      const dataDir = tempDir();
      const cache = tempDir();
      await startUp(children, dataDir, ['--proxy-mode', mode, '--node-name', 'node', '--nodes', '2', '--node-workers', '1', '--tables-files-interval', '1h']);
      const dirs = { 'node-1': join(dataDir, mode), 'node-2': join(dataDir, 'nodes', 'node-2', mode) };
      const [lastSync, table] = mode === 'iptables' ? ['last-sync.txt', 'rules.txt'] : ['last-sync.nft', 'ruleset.nft'];
      // The first sync wrote the table files, with the kubernetes Service in them.
      const first = await until(
        "both nodes' first tables",
        async () => Object.values(dirs).map((d) => read(join(d, table))),
        (texts) => texts.every((t) => t.includes('default/kubernetes')),
      );
      // Each sync writes its last-sync file over (a later sync, one with nothing to change say,
      // replaces web's text), so the file's content tells only the latest sync: a sync after web's
      // creation is one whose file is newer than the creation.
      const created = Date.now();
      await kubectlWith(join(dataDir, 'kubeconfig'), cache, 'create', 'service', 'clusterip', 'web', '--tcp', '80:8080');
      await until(
        "both nodes' last sync after web was created",
        async () => Object.values(dirs).map((d) => mtimeMs(join(d, lastSync))),
        (times) => times.every((t) => t >= created),
      );
      // The syncs since wrote no table file: they are the first sync's still.
      expect(Object.values(dirs).map((d) => read(join(d, table)))).toStrictEqual(first);
      expect(first.some((t) => t.includes('default/web'))).toBe(false);
    }, 180_000);
  }
});
