// INV-API-PROTOBUF-CLEAN: any bytes sent as a protobuf body (real captures cut short or with
// bytes changed, and arbitrary bytes behind the magic) decode to an object or to a 400
// BadRequest Status worded as upstream wraps a decoding error, never an exception; a body cut
// inside the envelope's raw field is always refused. A protobuf DeleteOptions body gives its
// object or a 500 Status with no reason (upstream sends its decoding errors as plain Go errors).
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { decodeBody, decodeProtobufDeleteOptions, type DecodeResult } from '../decode.js';
import { RESOURCES, type ResourceName } from '../resources.js';
import { PROTOBUF_MEDIA_TYPE } from './envelope.js';
import { DRAIN_DELETE_OPTIONS_HEX, KUBECTL_CAPTURES, PROTOC_FIXTURES } from './protobuf.fixtures.js';

interface Sample {
  readonly resource: ResourceName;
  readonly bytes: Uint8Array;
}

const resourceOfKind: Readonly<Record<string, ResourceName>> = {
  Service: 'services',
  Namespace: 'namespaces',
  Endpoints: 'endpoints',
  EndpointSlice: 'endpointslices',
  Event: 'events',
  Node: 'nodes',
};

const SAMPLES: readonly Sample[] = [
  ...Object.entries(KUBECTL_CAPTURES).map(([name, c]) => ({ resource: name === 'namespace' ? ('namespaces' as const) : ('services' as const), bytes: new Uint8Array(Buffer.from(c.hex, 'hex')) })),
  ...Object.values(PROTOC_FIXTURES).map((f) => ({ resource: resourceOfKind[f.kind] ?? 'services', bytes: new Uint8Array(Buffer.from(f.hex, 'hex')) })),
];

/** Where the envelope's raw field starts (its tag) and ends, read from the fixtures' one-byte typeMeta length and one- or two-byte raw length. */
function rawSpan(bytes: Uint8Array): { start: number; end: number } {
  const start = 4 + 2 + (bytes[5] ?? 0);
  const b0 = bytes[start + 1] ?? 0;
  const [length, lengthBytes] = b0 < 0x80 ? [b0, 1] : [(b0 & 0x7f) | ((bytes[start + 2] ?? 0) << 7), 2];
  return { start, end: start + 1 + lengthBytes + length };
}

function decodeAs(resource: ResourceName, bytes: Uint8Array): DecodeResult {
  return decodeBody(RESOURCES[resource], bytes, 'Strict', PROTOBUF_MEDIA_TYPE);
}

/** The result is an object, or a 400 worded as transformDecodeError words one (a changed kind may hold any bytes). */
function expectClean(r: DecodeResult, resource: ResourceName): void {
  if (r.ok) return;
  expect(r.error.code).toBe(400);
  expect(r.error.status.reason).toBe('BadRequest');
  const kind = RESOURCES[resource].kind;
  expect(r.error.message).toMatch(new RegExp(`^(the object provided is unrecognized \\(must be of type ${kind}\\): |[\\s\\S]* in version "[\\s\\S]*" cannot be handled as a ${kind}: )`));
}

const sample = fc.constantFrom(...SAMPLES);

test.prop([sample, fc.nat()])('INV-API-PROTOBUF-CLEAN: a capture cut short is an object or a 400; cut inside its raw field, always a 400', ({ resource, bytes }, at) => {
  const n = at % bytes.length;
  const r = decodeAs(resource, bytes.subarray(0, n));
  expectClean(r, resource);
  const { start, end } = rawSpan(bytes);
  if (n > start && n < end) {
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^the object provided is unrecognized \(must be of type \w+\): unexpected EOF \(/);
  }
});

test.prop([sample, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 })])(
  'INV-API-PROTOBUF-CLEAN: a capture with bytes changed is an object or a 400',
  ({ resource, bytes }, changes) => {
    const mutated = bytes.slice();
    for (const [at, value] of changes) mutated[at % mutated.length] = value;
    expectClean(decodeAs(resource, mutated), resource);
  },
);

test.prop([fc.constantFrom(...Object.keys(resourceOfKind).map((k) => resourceOfKind[k] ?? 'services'), 'pods' as const), fc.uint8Array({ maxLength: 64 })])(
  'INV-API-PROTOBUF-CLEAN: arbitrary bytes behind the magic are an object or a 400',
  (resource, tail) => {
    const body = new Uint8Array(4 + tail.length);
    body.set([0x6b, 0x38, 0x73, 0x00]);
    body.set(tail, 4);
    expectClean(decodeAs(resource, body), resource);
  },
);

test.prop([fc.oneof(fc.uint8Array({ maxLength: 48 }), fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, v]) => {
  const b = new Uint8Array(Buffer.from(DRAIN_DELETE_OPTIONS_HEX, 'hex'));
  b[at % b.length] = v;
  return b;
}))])('INV-API-PROTOBUF-CLEAN: a DeleteOptions body is its object or a 500 Status with no reason', (bytes) => {
  const r = decodeProtobufDeleteOptions(bytes);
  if (r.ok) return;
  expect(r.error.code).toBe(500);
  expect(r.error.status.reason).toBeUndefined();
  expect(r.error.message.length).toBeGreaterThan(0);
});
