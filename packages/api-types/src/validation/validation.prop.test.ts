// The validation properties: generated valid objects validate clean (INV-API-VALID), each
// "one rule broken" mutant gets exactly the error upstream gives for that rule
// (INV-API-MUTANT), and nothing that decodes, however odd, makes validation throw
// (INV-API-NOTHROW). The mutants' expected text is written out in testkit from upstream's
// messages, independently of this package's code.
import { fc, test } from '@fast-check/vitest';
import { endpointsMutantArb, kubeObjectArb, otherMutantArb, serviceArb, serviceMutantArb } from '@kubesvc/testkit';
import { expect, test as plainTest } from 'vitest';
import { decodeObject } from '../manifest/parse.js';
import { renderFieldError } from './field-errors.js';
import { validateObject } from './validate.js';

test.prop([kubeObjectArb()])('INV-API-VALID: every generated valid object validates clean', (object) => {
  expect(validateObject(object).map(renderFieldError)).toEqual([]);
});

test.prop([serviceArb(), fc.nat().map(String)])('INV-API-VALID: a valid Service updated to itself validates clean', (stored, resourceVersion) => {
  // An update must carry the resourceVersion it read (ValidateObjectMetaUpdate).
  const service = { ...stored, metadata: { ...stored.metadata, resourceVersion } };
  expect(validateObject(service, service).map(renderFieldError)).toEqual([]);
});

test.prop([serviceMutantArb()])('INV-API-MUTANT: each Service mutant yields exactly its expected field errors', (mutant) => {
  const errors = validateObject(mutant.object, mutant.old).map(renderFieldError);
  expect(errors, mutant.rule).toEqual(mutant.expected);
});

test.prop([endpointsMutantArb()])('INV-API-MUTANT: each Endpoints mutant yields exactly its expected field errors', (mutant) => {
  const errors = validateObject(mutant.object, mutant.old).map(renderFieldError);
  expect(errors, mutant.rule).toEqual(mutant.expected);
});

test.prop([otherMutantArb()])('INV-API-MUTANT: each Namespace, EndpointSlice and Pod mutant yields exactly its expected field errors', (mutant) => {
  const errors = validateObject(mutant.object, mutant.old).map(renderFieldError);
  expect(errors, mutant.rule).toEqual(mutant.expected);
});

plainTest('INV-API-MUTANT: the mutant generators reach every rule they know', () => {
  const rules = (arb: fc.Arbitrary<{ rule: string }>): Set<string> => new Set(fc.sample(arb, { numRuns: 3000, seed: 7 }).map((m) => m.rule));
  expect(rules(serviceMutantArb()).size).toBe(14);
  expect(rules(endpointsMutantArb()).size).toBe(4);
  expect(rules(otherMutantArb()).size).toBe(4);
});

// Objects that decode but are otherwise arbitrary: random JSON spliced into the fields
// validation reads, so that every branch meets odd strings, numbers and shapes.
const oddServiceArb = fc
  .record(
    {
      type: fc.oneof(fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'), fc.string()),
      clusterIP: fc.oneof(fc.constantFrom('', 'None', '10.0.0.1', '::1', '1.2.3'), fc.string()),
      clusterIPs: fc.array(fc.oneof(fc.constantFrom('None', '10.0.0.1', 'fd00::1', ''), fc.string()), { maxLength: 4 }),
      ipFamilies: fc.array(fc.oneof(fc.constantFrom('IPv4', 'IPv6'), fc.string()), { maxLength: 3 }),
      ipFamilyPolicy: fc.oneof(fc.constantFrom('SingleStack', 'PreferDualStack', 'RequireDualStack'), fc.string()),
      ports: fc.array(
        fc.record(
          {
            name: fc.string({ maxLength: 20 }),
            port: fc.integer({ min: -2147483648, max: 2147483647 }),
            protocol: fc.oneof(fc.constantFrom('TCP', 'UDP', 'SCTP'), fc.string()),
            targetPort: fc.oneof(fc.integer({ min: -2147483648, max: 2147483647 }), fc.string({ maxLength: 20 })),
            nodePort: fc.integer({ min: -2147483648, max: 2147483647 }),
            appProtocol: fc.string(),
          },
          { requiredKeys: ['port'], noNullPrototype: true },
        ),
        { maxLength: 4 },
      ),
      sessionAffinity: fc.oneof(fc.constantFrom('None', 'ClientIP'), fc.string()),
      sessionAffinityConfig: fc.jsonValue().map((v) => ({ clientIP: { timeoutSeconds: typeof v === 'number' && Number.isInteger(v) ? v : 0 } })),
      externalIPs: fc.array(fc.string(), { maxLength: 3 }),
      externalName: fc.string(),
      loadBalancerSourceRanges: fc.array(fc.string(), { maxLength: 3 }),
      externalTrafficPolicy: fc.string(),
      internalTrafficPolicy: fc.string(),
      healthCheckNodePort: fc.integer({ min: -2147483648, max: 2147483647 }),
      loadBalancerClass: fc.string(),
      allocateLoadBalancerNodePorts: fc.boolean(),
    },
    { requiredKeys: [], noNullPrototype: true },
  )
  .map((spec) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', namespace: 'y' }, spec }));

const oddEndpointsArb = fc
  .array(
    fc.record(
      {
        addresses: fc.array(fc.record({ ip: fc.string(), hostname: fc.string(), nodeName: fc.string() }, { requiredKeys: ['ip'], noNullPrototype: true }), { maxLength: 3 }),
        notReadyAddresses: fc.array(fc.record({ ip: fc.string() }, { noNullPrototype: true }), { maxLength: 2 }),
        ports: fc.array(fc.record({ name: fc.string(), port: fc.integer(), protocol: fc.string() }, { requiredKeys: ['port'], noNullPrototype: true }), { maxLength: 3 }),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    { maxLength: 3 },
  )
  .map((subsets) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'x', namespace: 'y' }, subsets }));

const oddMetadataArb = fc.record(
  { name: fc.string(), generateName: fc.string(), namespace: fc.string(), labels: fc.dictionary(fc.string(), fc.string()), annotations: fc.dictionary(fc.string(), fc.string()) },
  { requiredKeys: [], noNullPrototype: true },
);

test.prop([fc.oneof(oddServiceArb, oddEndpointsArb, kubeObjectArb()), oddMetadataArb, fc.boolean()])(
  'INV-API-NOTHROW: validating any object that decodes never throws, on create or on update',
  (raw, metadata, replaceMeta) => {
    const decoded = decodeObject(replaceMeta ? { ...raw, metadata } : raw);
    if (!decoded.ok) return;
    const object = decoded.value;
    for (const error of validateObject(object)) expect(typeof renderFieldError(error)).toBe('string');
    validateObject(object, object);
  },
);
