// Properties of the object model as a whole: printing and reading back, and defaulting.
import { fc, test } from '@fast-check/vitest';
import { kubeObjectArb, serviceArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { defaultObject, defaultService } from './defaults.js';
import { kubectlList } from './objects/kinds.js';
import type { Service } from './objects/service.js';
import { parseManifests } from './manifest/parse.js';
import { printJSON, printYAML, printYAMLDocuments } from './manifest/print.js';
import { defaultServiceIPFamilies, type ClusterIPFamilies } from './service-ip-families.js';
import { renderFieldError } from './validation/field-errors.js';
import { validateService } from './validation/service.js';

/** The objects a stream parses to, or the error's message (which no expected list equals). */
function objectsOf(text: string): readonly unknown[] | string {
  const result = parseManifests(text);
  return result.ok ? result.value.objects : result.error.message;
}

test.prop([kubeObjectArb()])('INV-API-ROUNDTRIP: parse(printJSON(x)) and parse(printYAML(x)) give back exactly x', (object) => {
  for (const text of [printJSON(object), printYAML(object)]) {
    expect(parseManifests(text)).toStrictEqual({ ok: true, value: { objects: [object], skipped: [] } });
  }
});

test.prop([fc.array(kubeObjectArb(), { maxLength: 5 })])(
  'INV-API-ROUNDTRIP: a kubectl List and a multi-document stream give back the same objects in order',
  (objects) => {
    expect(objectsOf(printJSON(kubectlList(objects)))).toStrictEqual(objects);
    expect(objectsOf(printYAML(kubectlList(objects)))).toStrictEqual(objects);
    expect(objectsOf(printYAMLDocuments(objects))).toStrictEqual(objects);
  },
);

test.prop([kubeObjectArb()])('INV-API-ROUNDTRIP: printing is a fixed point: print(parse(print(x))) = print(x)', (object) => {
  const json = printJSON(object);
  const yaml = printYAML(object);
  const fromJson = parseManifests(json);
  const fromYaml = parseManifests(yaml);
  expect(fromJson.ok && fromJson.value.objects.map((o) => printJSON(o))).toEqual([json]);
  expect(fromYaml.ok && fromYaml.value.objects.map((o) => printYAML(o))).toEqual([yaml]);
});

// A Service as a user writes it: some of the fields defaulting fills in are left out.
const userServiceArb = fc
  .tuple(serviceArb(), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
  .map(([service, drop]): Service => {
    const spec = { ...service.spec };
    if (drop[0]) delete spec.type;
    if (drop[1]) delete spec.sessionAffinity;
    if (drop[2]) delete spec.internalTrafficPolicy;
    if (drop[3]) delete spec.externalTrafficPolicy;
    if (drop[4]) delete spec.allocateLoadBalancerNodePorts;
    if (drop[5] && spec.sessionAffinityConfig) spec.sessionAffinityConfig = {};
    if (spec.ports) {
      spec.ports = spec.ports.map((p) => {
        const port = { ...p };
        if (drop[6]) delete port.protocol;
        if (drop[7]) port.targetPort = 0;
        return port;
      });
    }
    return { ...service, spec };
  });

test.prop([fc.oneof(kubeObjectArb(), userServiceArb)])(
  'INV-API-DEFAULT-IDEMPOTENT: defaulting a defaulted object changes nothing, and never changes its input',
  (object) => {
    const before = structuredClone(object);
    const once = defaultObject(object);
    expect(object).toStrictEqual(before);
    expect(defaultObject(once)).toStrictEqual(once);
  },
);

test.prop([userServiceArb])('INV-API-DEFAULT-IDEMPOTENT: a defaulted Service has every field defaulting owns', (service) => {
  const spec = defaultService(service).spec ?? {};
  expect(spec.type).toBeDefined();
  expect(spec.sessionAffinity).toBeDefined();
  for (const port of spec.ports ?? []) {
    expect(port.protocol).toBeDefined();
    expect(port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '').toBe(false);
  }
  if (spec.type !== 'ExternalName') expect(spec.internalTrafficPolicy).toBeDefined();
});

test.prop([serviceArb(), fc.constantFrom<ClusterIPFamilies>(['IPv4', 'IPv6'], ['IPv6', 'IPv4'])])(
  'INV-API-DEFAULT-IDEMPOTENT: IP-family defaulting on a dual-stack cluster is idempotent and leaves a valid Service valid',
  (service, cluster) => {
    const once = defaultServiceIPFamilies(service, cluster);
    if (!once.ok) throw new Error(once.error.message);
    expect(defaultServiceIPFamilies(once.value, cluster)).toStrictEqual(once);
    expect(validateService(once.value).map(renderFieldError)).toEqual([]);
    if (service.spec?.type !== 'ExternalName') expect(once.value.spec?.ipFamilies?.length).toBeGreaterThan(0);
  },
);
