// INV-API-NOTHROW for the reading side: whatever text or JSON value comes in, parsing
// returns objects and errors and never throws. (Validation's half is in
// src/validation/validation.prop.test.ts.)
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { decodeObject, formatManifestIssue, parseManifests } from './parse.js';

const kinds = fc.constantFrom('Service', 'Endpoints', 'EndpointSlice', 'Pod', 'Namespace', 'Event', 'RangeAllocation', 'Status', 'List', 'ServiceList', 'Deployment');
const versions = fc.constantFrom('v1', 'discovery.k8s.io/v1', 'apps/v1', '');

// JSON values that look like manifests often enough to reach the schemas.
const manifestLike = fc.record(
  {
    apiVersion: versions,
    kind: kinds,
    metadata: fc.oneof(fc.record({ name: fc.string(), namespace: fc.string() }, { requiredKeys: [] }), fc.jsonValue()),
    spec: fc.jsonValue(),
    items: fc.array(fc.jsonValue(), { maxLength: 3 }),
    subsets: fc.jsonValue(),
    endpoints: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

test.prop([fc.string({ unit: 'binary', maxLength: 400 })])(
  'INV-API-NOTHROW: parsing random text never throws, and every failure is reported as an error',
  (text) => {
    const result = parseManifests(text);
    // A failure lists at least one cause, and its message is them printed one a line.
    if (!result.ok) {
      expect(result.error.causes.length).toBeGreaterThan(0);
      expect(result.error.message).toBe(result.error.causes.map(formatManifestIssue).join('\n'));
    }
  },
);

test.prop([fc.oneof(fc.jsonValue(), manifestLike)])(
  'INV-API-NOTHROW: decoding any JSON value never throws, as JSON text, as YAML text, or as a value',
  (value) => {
    decodeObject(value);
    const json = JSON.stringify(value) ?? 'null';
    parseManifests(json, { format: 'json' });
    parseManifests(json, { format: 'yaml' });
    parseManifests(json, { tolerant: true });
  },
);
