// INV-EP-LEASE at the level of whole apiservers: several of them, each with its own lease,
// crash, restart and shut down in the simulator while the clock runs.
import { fc, test } from '@fast-check/vitest';
import { formatIP } from '@kubesvc/api-types';
import { expect } from 'vitest';
import {
  addApiserver,
  advance,
  crashApiserver,
  newSimulation,
  startApiserver,
  stopApiserver,
  type Simulation,
} from './simulator/index.js';
import { kubernetesEndpointIPs } from './simulator/views.js';

const TTL = 15_000;
const INTERVAL = 10_000;
// "10.0.0.10" sorts before "10.0.0.9" as text: the addresses are compared as strings upstream.
const IPS = ['10.0.0.9', '10.0.0.10', '10.0.0.2', '192.168.7.1'];

type Command =
  | { readonly op: 'crash' | 'start' | 'stop'; readonly server: number }
  | { readonly op: 'wait'; readonly ms: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constantFrom('crash' as const, 'start' as const, 'stop' as const), server: fc.integer({ min: 0, max: IPS.length - 1 }) }, { noNullPrototype: true }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 20_000 }) }, { noNullPrototype: true }),
);

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function running(sim: Simulation): string[] {
  return sim.apiservers.filter((s) => s.state?.phase === 'running').map((s) => formatIP(s.config.publicIP));
}

test.prop([fc.integer({ min: 2, max: IPS.length }), fc.array(commandArb, { maxLength: 30 })])(
  'INV-EP-LEASE: apiservers crashing, restarting and stopping: every Endpoints write is sorted and non-empty, and the addresses converge to the live apiservers within TTL + interval',
  (count, commands) => {
    const ips = IPS.slice(0, count);
    let sim = newSimulation({ serviceClusterIPRange: '10.96.0.0/16' });
    for (const [i, ip] of ips.entries()) sim = startApiserver(addApiserver(sim, `apiserver-${i}`, { publicIP: ip }), `apiserver-${i}`);
    for (const command of commands) {
      if (command.op === 'wait') {
        sim = advance(sim, command.ms);
        continue;
      }
      const name = `apiserver-${command.server % count}`;
      sim = command.op === 'crash' ? crashApiserver(sim, name) : command.op === 'start' ? startApiserver(sim, name) : stopApiserver(sim, name);
    }
    sim = advance(sim, TTL + INTERVAL);

    for (const record of sim.records) {
      if (record.kind !== 'write' || record.write.kind === 'event' || !('object' in record.write) || record.write.object.kind !== 'Endpoints') continue;
      const written = (record.write.object.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
      expect(written.length).toBeGreaterThan(0);
      expect(written).toEqual([...written].sort(byteOrder));
    }
    const live = running(sim);
    if (live.length > 0) expect(kubernetesEndpointIPs(sim)).toEqual([...live].sort(byteOrder));
  },
);
