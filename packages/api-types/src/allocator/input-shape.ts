// The shape checks both allocator packages run on what their public entry points take from
// outside (a stored snapshot, the Services a repair reads), so that a wrong shape is an error
// value with one wording in both, never a TypeError from deep inside.
import { describeValue, isRecord, listProblem, schemaProblem } from '../input-shape.js';
import { ServiceSchema } from '../objects/service.js';

/** Why a snapshot argument is not `{ range: string, data: string | Uint8Array }`, or undefined. */
export function snapshotShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `expected a snapshot { range, data }, got ${describeValue(value)}`;
  if (typeof value['range'] !== 'string') return `snapshot range: expected a string, got ${describeValue(value['range'])}`;
  const data = value['data'];
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) return `snapshot data: expected base64 text or bytes, got ${describeValue(data)}`;
  return undefined;
}

/** What a repair reads of a Service: its metadata and spec (`Pick<Service, 'metadata' | 'spec'>`). */
const SERVICE_PARTS = ServiceSchema.pick({ metadata: true, spec: true });

/** Why a repair's list of Services is not one, or undefined (the schema's first issue, with its index). */
export function repairServicesShapeProblem(value: unknown): string | undefined {
  return listProblem(value, 'services', (service, at) => schemaProblem(SERVICE_PARTS, service, at));
}
