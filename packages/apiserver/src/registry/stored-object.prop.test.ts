// The list fast path writes each object from its stored text; it must give exactly the bytes
// that parsing the stored value, setting resourceVersion and stringifying give.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { deserializeObject, serializedForReader, serializeObject } from './stored-object.js';

// Objects as they are stored: JSON values, with a metadata object among arbitrary members
// (keys and strings full of quotes, braces, backslashes and a nested "metadata").
const tricky = fc.constantFrom('metadata', 'resourceVersion', '"', '\\', '{', '}', '[', ']', ',', ':', '"metadata":{', 'a');
const key = fc.oneof(fc.string({ maxLength: 6 }), tricky);
const text = fc.oneof(fc.string({ maxLength: 8 }), tricky, fc.array(tricky, { maxLength: 4 }).map((p) => p.join('')));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 }), fc.dictionary(fc.constantFrom('metadata', 'resourceVersion'), tie('v'), { maxKeys: 2 })),
})).v;
const object = fc
  .record({ before: fc.dictionary(key, value, { maxKeys: 3 }), metadata: fc.dictionary(key, value, { maxKeys: 4 }), after: fc.dictionary(key, value, { maxKeys: 3 }) })
  .map(({ before, metadata, after }) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(before)) if (k !== 'metadata') out[k] = v;
    out['metadata'] = metadata;
    for (const [k, v] of Object.entries(after)) if (k !== 'metadata') out[k] = v;
    return out;
  });

test.prop([object, fc.integer({ min: 1, max: 2 ** 40 })])(
  'INV-REG-LIST-TEXT: an object written from its stored text equals the stringified object a reader sees',
  (obj, revision) => {
    const stored = serializeObject(obj as never);
    const kv = { value: stored, modRevision: revision };
    expect(serializedForReader(kv)).toBe(JSON.stringify(deserializeObject(kv)));
  },
);
