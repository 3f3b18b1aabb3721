// INV-BOOT-REPAIR: the controller runs both repair loops at start and every 3 minutes after,
// and carries their leak counters from one run to the next, so that a leaked ClusterIP or
// NodePort is freed by the 3rd run that finds it (upstream numRepairsBeforeLeakCleanup = 3)
// and one in use never is.
import { fc, test } from '@fast-check/vitest';
import { formatIP, type IP } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot } from '@kubesvc/ipallocator';
import { allocatedPorts, portAllocatorFromSnapshot } from '@kubesvc/portallocator';
import { expect } from 'vitest';
import {
  addApiserver,
  advance,
  createUserService,
  leakIP,
  leakNodePort,
  newSimulation,
  startApiserver,
  type Simulation,
} from './simulator/index.js';

const REPAIR_INTERVAL = 180_000;

function held(sim: Simulation): Set<string> {
  const stored = sim.cluster.ranges.serviceIPs;
  if (stored === undefined) return new Set();
  const restored = ipAllocatorFromSnapshot(stored);
  if (!restored.ok) throw new Error(restored.error.message);
  return new Set(allocatedIPs(restored.value).map((ip: IP) => formatIP(ip)));
}

function heldPorts(sim: Simulation): Set<number> {
  const stored = sim.cluster.ranges.nodePorts;
  if (stored === undefined) return new Set();
  const restored = portAllocatorFromSnapshot(stored);
  if (!restored.ok) throw new Error(restored.error.message);
  return new Set(allocatedPorts(restored.value));
}

function portsInUse(sim: Simulation): number[] {
  return [...sim.cluster.services.values()].flatMap((s) => (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0)).filter((p) => p !== 0);
}

function inUse(sim: Simulation): string[] {
  return [...sim.cluster.services.values()].map((s) => s.spec?.clusterIP ?? '').filter((ip) => ip !== '');
}

function runs(sim: Simulation, loop: 'ipRepair' | 'portRepair'): number {
  return sim.apiservers[0]?.state?.loops[loop].runs ?? -1;
}

test.prop([
  fc.integer({ min: 0, max: 6 }),
  fc.uniqueArray(fc.integer({ min: 2, max: 254 }), { minLength: 1, maxLength: 6 }),
  fc.uniqueArray(fc.integer({ min: 30000, max: 32767 }), { maxLength: 4 }),
  fc.integer({ min: 0, max: REPAIR_INTERVAL - 1 }),
  fc.integer({ min: 1, max: 1_000 }),
])(
  'INV-BOOT-REPAIR: repairs run at start and every 3 minutes, and a leaked IP or NodePort stays allocated through 2 runs and is freed on the 3rd while those in use stay',
  (services, leakHosts, leakPorts, leakAfter, seed) => {
    let sim = newSimulation({ serviceClusterIPRange: '10.96.0.0/24', namespaces: ['default'], seed });
    // Every other user Service is a NodePort Service, so that ports in use are checked too.
    for (let i = 0; i < services; i++) sim = createUserService(sim, { name: `web-${i}`, type: i % 2 === 0 ? 'ClusterIP' : 'NodePort' });
    sim = startApiserver(addApiserver(sim, 'apiserver', { publicIP: '192.168.1.10' }), 'apiserver');
    expect(runs(sim, 'ipRepair')).toBe(1);
    expect(runs(sim, 'portRepair')).toBe(1);

    // Leak after the first run: the runs that find it are at 3, 6 and 9 minutes.
    sim = advance(sim, leakAfter);
    const used = new Set(inUse(sim));
    const leaked = leakHosts.map((h) => `10.96.0.${h}`).filter((ip) => !used.has(ip));
    for (const ip of leaked) sim = leakIP(sim, ip);
    const usedPorts = new Set(portsInUse(sim));
    const leakedPorts = leakPorts.filter((p) => !usedPorts.has(p));
    for (const port of leakedPorts) sim = leakNodePort(sim, port);

    for (let run = 1; run <= 3; run++) {
      // Just before the run, then at it.
      sim = advance(sim, run * REPAIR_INTERVAL - 1 - sim.now);
      expect(runs(sim, 'ipRepair')).toBe(run);
      expect(runs(sim, 'portRepair')).toBe(run);
      sim = advance(sim, 1);
      expect(runs(sim, 'ipRepair')).toBe(run + 1);
      expect(runs(sim, 'portRepair')).toBe(run + 1);
      const now = held(sim);
      for (const ip of inUse(sim)) expect(now.has(ip)).toBe(true);
      for (const ip of leaked) expect(now.has(ip)).toBe(run < 3);
      const ports = heldPorts(sim);
      for (const port of portsInUse(sim)) expect(ports.has(port)).toBe(true);
      for (const port of leakedPorts) expect(ports.has(port)).toBe(run < 3);
    }
  },
);
