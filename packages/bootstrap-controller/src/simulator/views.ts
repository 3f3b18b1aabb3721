// Read-outs of a simulation for tests and examples.
import type { Endpoints, Service } from '@kubesvc/api-types';
import type { SimRecord, Simulation } from './simulation.js';

export function serviceIn(sim: Simulation, namespace: string, name: string): Service | undefined {
  return sim.cluster.services.get(`${namespace}/${name}`);
}

export function endpointsIn(sim: Simulation, namespace: string, name: string): Endpoints | undefined {
  return sim.cluster.endpoints.get(`${namespace}/${name}`);
}

/** The addresses of default/kubernetes, in the order they are stored. */
export function kubernetesEndpointIPs(sim: Simulation): string[] {
  return (endpointsIn(sim, 'default', 'kubernetes')?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
}

export function namespaceNames(sim: Simulation): string[] {
  return [...sim.cluster.namespaces.keys()].sort();
}

/** The records after index `from` (e.g. the length before an operation). */
export function recordsSince(sim: Simulation, from: number): readonly SimRecord[] {
  return sim.records.slice(from);
}
