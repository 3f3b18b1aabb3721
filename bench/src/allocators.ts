// The allocators suite: automatic allocation until full, allocate/release churn at 90 % full,
// snapshot and restore, one repair run over 10,000 Services, and the memory of a full /12.
// Targets are issue 4's. Every task builds from persistent values, so a task can run many times
// on the same inputs.
import {
  allocateIP,
  allocateNextIP,
  allocateNextIPs,
  ipAllocatorFromSnapshot,
  newIPAllocator,
  releaseIP,
  repairClusterIPs,
  seededRng,
  serviceIPRange,
  snapshotIPAllocator,
  type IPAllocator,
  type Rng,
} from '@kubesvc/ipallocator';
import { allocateNextPort, newPortAllocator, releasePort, type PortAllocator } from '@kubesvc/portallocator';
import { fullGC } from './full-gc.js';
import type { BenchSuite, BenchTask } from './harness.js';

type IP = Parameters<typeof allocateIP>[1];
type CIDR = Parameters<typeof newIPAllocator>[0];
type Service = Parameters<typeof repairClusterIPs>[0]['services'][number];

function cidr(text: string): CIDR {
  const r = serviceIPRange(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value.cidr;
}

function fillIPs(start: IPAllocator, rng: Rng, limit = Infinity): { allocator: IPAllocator; rng: Rng; ips: IP[] } {
  let allocator = start;
  let r = rng;
  const ips: IP[] = [];
  while (ips.length < limit) {
    const next = allocateNextIP(allocator, r);
    if (!next.ok) {
      r = next.error.rng;
      break;
    }
    ({ allocator, rng: r } = next.value);
    ips.push(next.value.ip);
  }
  return { allocator, rng: r, ips };
}

function fillTask(name: string, text: string, target?: BenchTask['target']): BenchTask {
  const network = cidr(text);
  let count = 0;
  return {
    name,
    fn: () => {
      let allocator = newIPAllocator(network);
      let rng = seededRng(1);
      for (;;) {
        const next = allocateNextIP(allocator, rng);
        if (!next.ok) break;
        ({ allocator, rng } = next.value);
      }
      count = allocator.bitmap.count;
    },
    ...(target ? { target } : {}),
    metrics: () => ({ allocated: count }),
  };
}

const CHURN_OPS = 2000;

/** release + allocateNext pairs on a range kept 90 % full; the fn runs CHURN_OPS operations. */
function ipChurnTask(name: string, text: string): BenchTask {
  let allocator = newIPAllocator(cidr(text));
  let rng = seededRng(2);
  let held: IP[] = [];
  let cursor = 0;
  return {
    name,
    setup: () => {
      const target = Math.floor(allocator.range.max * 0.9);
      const filled = fillIPs(allocator, rng, target);
      allocator = filled.allocator;
      rng = filled.rng;
      held = filled.ips;
    },
    fn: () => {
      for (let i = 0; i < CHURN_OPS / 2; i++) {
        cursor = (cursor + 7919) % held.length;
        const old = held[cursor];
        if (old === undefined) throw new Error('churn: empty slot');
        allocator = releaseIP(allocator, old);
        const next = allocateNextIP(allocator, rng);
        if (!next.ok) throw new Error('churn: range full');
        ({ allocator, rng } = next.value);
        held[cursor] = next.value.ip;
      }
    },
    target: { medianMs: (CHURN_OPS * 2) / 1000, source: 'issue 4: churn <= 2 µs per operation at 90 % full' },
    metrics: () => ({ opsPerCall: CHURN_OPS, used: allocator.bitmap.count }),
  };
}

function portChurnTask(): BenchTask {
  let allocator: PortAllocator = newPortAllocator({ base: 30000, size: 2768 });
  let rng = seededRng(3);
  const held: number[] = [];
  let cursor = 0;
  return {
    name: 'churn 90% 30000-32767',
    setup: () => {
      while (held.length < Math.floor(2768 * 0.9)) {
        const next = allocateNextPort(allocator, rng);
        if (!next.ok) break;
        ({ allocator, rng } = next.value);
        held.push(next.value.port);
      }
    },
    fn: () => {
      for (let i = 0; i < CHURN_OPS / 2; i++) {
        cursor = (cursor + 101) % held.length;
        allocator = releasePort(allocator, held[cursor] ?? 0);
        const next = allocateNextPort(allocator, rng);
        if (!next.ok) throw new Error('churn: range full');
        ({ allocator, rng } = next.value);
        held[cursor] = next.value.port;
      }
    },
    target: { medianMs: (CHURN_OPS * 2) / 1000, source: 'issue 4: churn <= 2 µs per operation at 90 % full' },
    metrics: () => ({ opsPerCall: CHURN_OPS }),
  };
}

function portFillTask(): BenchTask {
  return {
    name: 'allocateNext until full 30000-32767',
    fn: () => {
      let allocator = newPortAllocator({ base: 30000, size: 2768 });
      let rng = seededRng(1);
      for (;;) {
        const next = allocateNextPort(allocator, rng);
        if (!next.ok) break;
        ({ allocator, rng } = next.value);
      }
    },
  };
}

function snapshotTasks(): BenchTask[] {
  let full = newIPAllocator(cidr('10.96.0.0/16'));
  let snapshot = snapshotIPAllocator(full);
  return [
    {
      name: 'snapshot full /16',
      setup: () => {
        full = fillIPs(full, seededRng(4)).allocator;
        snapshot = snapshotIPAllocator(full);
      },
      fn: () => snapshotIPAllocator(full),
      metrics: () => ({ base64Chars: snapshot.data.length }),
    },
    {
      name: 'restore full /16',
      fn: () => {
        const r = ipAllocatorFromSnapshot(snapshot);
        if (!r.ok || r.value.bitmap.count !== 65534) throw new Error('restore: wrong state');
      },
    },
  ];
}

function ipText(n: number): string {
  return `10.96.${(n >> 8) & 255}.${n & 255}`;
}

function repairTask(): BenchTask {
  const network = cidr('10.96.0.0/16');
  const services: Service[] = [];
  let snapshot = snapshotIPAllocator(newIPAllocator(network));
  let events = 0;
  return {
    name: 'repair 10,000 Services',
    setup: () => {
      let stored = newIPAllocator(network);
      for (let i = 0; i < 10_000; i++) {
        const n = 2 + i * 6; // spread over the /16
        const ip = ipText(n);
        // As a ServiceList's items come: repair reads only metadata and spec.
        services.push({
          metadata: { namespace: `ns${i % 50}`, name: `svc-${i}` },
          spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ port: 80 }] },
        });
        // most are stored; every 100th is missing (ClusterIPNotAllocated), and a few leak
        if (i % 100 !== 0) {
          const r = allocateIP(stored, { family: 4, value: network.network.value + BigInt(n) });
          if (r.ok) stored = r.value;
        }
        if (i % 500 === 0) {
          const r = allocateIP(stored, { family: 4, value: network.network.value + BigInt(n + 1) });
          if (r.ok) stored = r.value;
        }
      }
      snapshot = snapshotIPAllocator(stored);
    },
    fn: () => {
      const result = repairClusterIPs({ networks: [network], snapshots: [snapshot], services });
      if (!result.ok) throw new Error(result.error.message);
      events = result.value.events.length;
    },
    target: { medianMs: 50, source: 'issue 4: repair of 10,000 Services <= 50 ms' },
    metrics: () => ({ services: services.length, events }),
  };
}

/** The JS heap in use. The states are plain arrays and objects, all on the heap; typed arrays
 * (the temporary words of a restore) live outside it and are freed concurrently, which would
 * only add noise. */
function heap(): number {
  return process.memoryUsage().heapUsed;
}

/** Bytes retained by the state `build` returns, measured as the heap growth after full GCs. */
function retainedBytes(build: () => unknown): number {
  fullGC();
  const before = heap();
  const kept = build();
  fullGC();
  const after = heap();
  if (kept === undefined) throw new Error('nothing built');
  return after - before;
}

function memoryTask(): BenchTask {
  const network = cidr('10.96.0.0/12');
  let fullKiB = 0;
  let ninetyKiB = 0;
  let filled = 0;
  return {
    name: 'allocateNext until full /12 (batch)',
    setup: () => {
      const full = allocateNextIPs(newIPAllocator(network), seededRng(5), Infinity).allocator;
      const ninety = allocateNextIPs(newIPAllocator(network), seededRng(6), Math.floor(full.range.max * 0.9)).allocator;
      // Restored copies share nothing with each other but the one full-leaf constant, so the
      // growth over several copies, divided, is what one state keeps alive.
      const fullSnapshot = snapshotIPAllocator(full);
      const ninetySnapshot = snapshotIPAllocator(ninety);
      const copies = (snapshot: typeof fullSnapshot, n: number) => () =>
        Array.from({ length: n }, () => ipAllocatorFromSnapshot(snapshot));
      // One restore of each first, so that code compiled on first use is not counted as state.
      ipAllocatorFromSnapshot(fullSnapshot);
      ipAllocatorFromSnapshot(ninetySnapshot);
      fullKiB = retainedBytes(copies(fullSnapshot, 200)) / 200 / 1024;
      ninetyKiB = retainedBytes(copies(ninetySnapshot, 5)) / 5 / 1024;
    },
    fn: () => {
      filled = allocateNextIPs(newIPAllocator(network), seededRng(1), Infinity).ips.length;
    },
    target: { medianMs: 1000, source: 'issue 4: fill a /12 (1,048,574 addresses) in <= 1 s' },
    metrics: () => ({ allocated: filled, fullStateKiB: Math.round(fullKiB * 10) / 10, ninetyPercentStateKiB: Math.round(ninetyKiB) }),
  };
}

export function allocatorsSuite(): BenchSuite {
  return {
    name: 'allocators',
    description: 'ClusterIP and NodePort allocators: fill, churn at 90 % full, snapshot/restore, repair, state memory',
    tasks: [
      fillTask('allocateNext until full /24', '10.96.0.0/24'),
      fillTask('allocateNext until full /16', '10.96.0.0/16'),
      memoryTask(),
      fillTask('allocateNext until full /12 (one call at a time)', '10.96.0.0/12', {
        medianMs: 1000,
        source: 'issue 4: fill a /12 (1,048,574 addresses) in <= 1 s, with the plain persistent allocateNext',
      }),
      portFillTask(),
      ipChurnTask('churn 90% /16', '10.96.0.0/16'),
      ipChurnTask('churn 90% /12', '10.96.0.0/12'),
      portChurnTask(),
      ...snapshotTasks(),
      repairTask(),
    ],
  };
}
