// Shape checks for buildZone's and resolve's inputs: a caller in JavaScript, or objects read
// from a cluster dump as JSON, can pass anything. Each check runs once, at the edge, so that a
// wrong shape is an error value naming the part instead of a TypeError from deep inside.
// Kubernetes objects are checked with api-types' zod schemas.

import { EndpointSliceSchema, EndpointsSchema, PodSchema, ServiceSchema, isRecord, describeValue, schemaProblem, listProblem } from '@kubesvc/api-types';

/** Why `value` is not a list of Services, or undefined. */
export function servicesProblem(value: unknown, where = 'services'): string | undefined {
  return listProblem(value, where, (s, at) => schemaProblem(ServiceSchema, s, at));
}

/** Why `value` is not an array of strings, or undefined (undefined itself is fine). */
export function optionalStringsProblem(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  return listProblem(value, where, (item, at) => (typeof item === 'string' ? undefined : `${at}: expected a string, got ${describeValue(item)}`));
}

/** Why buildZone's object lists are not lists of Services, EndpointSlices or Endpoints, and Pods; or undefined. */
export function zoneObjectsProblem(services: unknown, endpoints: unknown, pods: unknown): string | undefined {
  return (
    listProblem(services, 'services', (s, at) => schemaProblem(ServiceSchema, s, at)) ??
    listProblem(endpoints, 'endpoints', (e, at) => {
      if (!isRecord(e)) return `${at}: expected an EndpointSlice or Endpoints, got ${describeValue(e)}`;
      if (e['kind'] === 'EndpointSlice') return schemaProblem(EndpointSliceSchema, e, at);
      if (e['kind'] === 'Endpoints') return schemaProblem(EndpointsSchema, e, at);
      return `${at}.kind: expected "EndpointSlice" or "Endpoints", got ${describeValue(e['kind'])}`;
    }) ??
    listProblem(pods, 'pods', (p, at) => schemaProblem(PodSchema, p, at))
  );
}

const STRING_LISTS = ['namespaces', 'nameservers', 'reverseZones'] as const;

/** Why options is not a ZoneOptions shape, with the option at fault; or undefined. Values are checked by checkOptions. */
export function zoneOptionsProblem(options: unknown): { readonly option: 'zone' | 'ttl' | 'serial' | 'pods' | (typeof STRING_LISTS)[number]; readonly message: string } | undefined {
  if (!isRecord(options)) return { option: 'zone', message: `options: expected an object, got ${describeValue(options)}` };
  const zone = options['zone'];
  if (zone !== undefined && typeof zone !== 'string') return { option: 'zone', message: `zone: expected a string, got ${describeValue(zone)}` };
  for (const name of ['ttl', 'serial'] as const) {
    const v = options[name];
    if (v !== undefined && typeof v !== 'number') return { option: name, message: `${name}: expected a number, got ${describeValue(v)}` };
  }
  for (const name of STRING_LISTS) {
    const v = options[name];
    if (v === undefined) continue;
    if (!Array.isArray(v)) return { option: name, message: `${name}: expected an array of strings, got ${describeValue(v)}` };
    const bad = (v as unknown[]).findIndex((item) => typeof item !== 'string');
    if (bad >= 0) return { option: name, message: `${name}[${bad}]: expected a string, got ${describeValue((v as unknown[])[bad])}` };
  }
  return undefined;
}
