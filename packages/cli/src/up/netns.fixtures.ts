// For e2e tests of `kubesvc up --dataplane netns`: whatever ends a test, each bin it started is
// killed and what its pod network left is removed (a SIGKILL leaves the namespaces, as a crash
// would). Register before e2eScope, so that this afterEach runs first.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removePodNetworkLeftovers } from '@kubesvc/node-agent/netns';
import { afterEach } from 'vitest';
import type { RunningUp } from './up.fixtures.js';

export interface PodNetworkScope {
  /** The pod networks' name prefixes to clear after each test. */
  readonly prefixes: Set<string>;
  /** The bins to kill after each test (a test that stops one itself deletes it). */
  readonly ups: Set<RunningUp>;
}

export function podNetworkScope(): PodNetworkScope {
  const prefixes = new Set<string>();
  const ups = new Set<RunningUp>();
  afterEach(async () => {
    for (const up of ups) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
    ups.clear();
    for (const p of prefixes) {
      removePodNetworkLeftovers(p);
      rmSync(join(tmpdir(), `${p}-relay`), { recursive: true, force: true });
    }
    prefixes.clear();
  });
  return { prefixes, ups };
}
