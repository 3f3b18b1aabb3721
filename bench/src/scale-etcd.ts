// The "scale" suite's etcd: a real one started by testkit's startEtcd, in a module of its own
// that scale.ts loads only for the etcd run (the testkit brings fast-check, a few hundred MiB
// of heap that the SQLite run would otherwise carry).
import { openEtcdStore } from '@kubesvc/store/etcd';
import type { Store } from '@kubesvc/store';
import { startEtcd } from '@kubesvc/testkit';

export interface ScaleEtcd {
  readonly store: Store;
  /** Closes the client, then stops etcd and removes its data dir. */
  dispose(): Promise<void>;
}

export async function openScaleEtcd(): Promise<ScaleEtcd> {
  const etcd = await startEtcd({ name: 'kubesvc-bench-scale' });
  try {
    const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    return {
      store,
      dispose: async () => {
        try {
          await store.close();
        } finally {
          await etcd.dispose();
        }
      },
    };
  } catch (error) {
    await etcd.dispose();
    throw error;
  }
}
