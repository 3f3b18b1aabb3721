// The protobuf body decoder against bytes real clients sent (kubectl 1.33's generators and
// drain) and bytes protoc encoded from upstream's .proto files, with the JSON upstream's Go
// types print for the same objects; then malformed bodies against the errors gogo's generated
// Unmarshal methods return, as the apiserver wraps them.
import { describe, expect, it } from 'vitest';
import { decodeBody, decodeProtobufDeleteOptions, type DecodeResult } from '../decode.js';
import { RESOURCES, type ResourceName } from '../resources.js';
import { PROTOBUF_MEDIA_TYPE } from './envelope.js';
import { Service } from './messages.js';
import { Pod } from './pod-messages.js';
import { DEBUG_POD_HEX, DRAIN_DELETE_OPTIONS_HEX, KUBECTL_CAPTURES, PROTOC_FIXTURES } from './protobuf.fixtures.js';
import { decodeMessage } from './unmarshal.js';
import { ProtoError } from './wire.js';

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));

function decode(resource: ResourceName, hex: string, fieldValidation: 'Strict' | 'Warn' | 'Ignore' = 'Strict'): DecodeResult {
  return decodeBody(RESOURCES[resource], bytes(hex), fieldValidation, PROTOBUF_MEDIA_TYPE);
}

function decoded(resource: ResourceName, hex: string): unknown {
  const r = decode(resource, hex);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.value.warnings).toEqual([]);
  return r.value.object;
}

function refusal(resource: ResourceName, hex: string): { code: number; reason: unknown; message: string } {
  const r = decode(resource, hex);
  if (r.ok) throw new Error('decoded a body that should be refused');
  return { code: r.error.code, reason: r.error.status.reason, message: r.error.message };
}

/** Decodes a bare message (no envelope) as a Service, for the wire-level cases. */
function service(hex: string): Record<string, unknown> {
  return decodeMessage(Service, bytes(hex));
}

function serviceError(hex: string): string {
  try {
    decodeMessage(Service, bytes(hex));
  } catch (e) {
    if (e instanceof ProtoError) return e.message;
    throw e;
  }
  throw new Error('decoded a message that should be refused');
}

describe("kubectl's typed generators: the bytes become the JSON kubectl prints for the same object", () => {
  for (const [name, capture] of Object.entries(KUBECTL_CAPTURES)) {
    it(`kubectl ${capture.command}`, () => {
      const resource = name === 'namespace' ? 'namespaces' : 'services';
      expect(decoded(resource, capture.hex)).toEqual(JSON.parse(capture.dryRunJson));
    });
  }
});

describe("kubectl debug node's Pod", () => {
  it('the inline VolumeSource prints in the volume, the empty resources struct as {}, explicit false and "" non-pointers drop out', () => {
    expect(decoded('pods', DEBUG_POD_HEX)).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'node-debugger-node-1-sf6tn', creationTimestamp: null },
      spec: {
        volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
        containers: [{ name: 'debugger', image: 'busybox', resources: {}, volumeMounts: [{ name: 'host-root', mountPath: '/host' }], terminationMessagePolicy: 'File' }],
        restartPolicy: 'Never',
        nodeName: 'node-1',
        hostNetwork: true,
        hostPID: true,
        hostIPC: true,
        tolerations: [{ operator: 'Exists' }],
      },
      status: {},
    });
  });
});

describe('other kinds, encoded by protoc from the upstream .proto files', () => {
  it('Endpoints: subsets with addresses, a targetRef, a pointer nodeName and an appProtocol', () => {
    expect(decoded('endpoints', PROTOC_FIXTURES.endpoints.hex)).toEqual({
      kind: 'Endpoints',
      apiVersion: 'v1',
      metadata: { name: 'db', namespace: 'default', creationTimestamp: null, labels: { app: 'db' } },
      subsets: [
        {
          addresses: [{ ip: '10.244.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'db-0', uid: 'u-1' } }],
          notReadyAddresses: [{ ip: '10.244.0.6', hostname: 'db-1' }],
          ports: [{ name: 'pg', port: 5432, protocol: 'TCP', appProtocol: 'postgresql' }],
        },
      ],
    });
  });

  it('EndpointSlice: pointer conditions print even when false, an absent conditions struct prints {}', () => {
    expect(decoded('endpointslices', PROTOC_FIXTURES.endpointSlice.hex)).toEqual({
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: { name: 'db-abc12', namespace: 'default', creationTimestamp: null, labels: { 'kubernetes.io/service-name': 'db' } },
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['10.244.0.5'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-1', zone: 'z1', hints: { forZones: [{ name: 'z1' }] } },
        { addresses: ['10.244.0.6'], conditions: {} },
      ],
      ports: [{ name: 'pg', protocol: 'TCP', port: 5432 }],
    });
  });

  it('EndpointSlice without endpoints or ports: both print null (their json tags have no omitempty)', () => {
    expect(decoded('endpointslices', PROTOC_FIXTURES.emptyEndpointSlice.hex)).toEqual({
      kind: 'EndpointSlice',
      apiVersion: 'discovery.k8s.io/v1',
      metadata: { name: 'db-empty', namespace: 'default', creationTimestamp: null },
      addressType: 'IPv6',
      endpoints: null,
      ports: null,
    });
  });

  it('Event: Time keeps whole seconds, MicroTime microseconds, an empty Time message is null', () => {
    // 1700000000 is 2023-11-14T22:13:20Z.
    expect(decoded('events', PROTOC_FIXTURES.event.hex)).toEqual({
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'web.1', namespace: 'default', creationTimestamp: null },
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web' },
      reason: 'Created',
      message: 'hello',
      source: { component: 'kubesvc' },
      firstTimestamp: '2023-11-14T22:13:20Z',
      lastTimestamp: null,
      count: 2,
      type: 'Normal',
      eventTime: '2023-11-14T22:13:20.123456Z',
      reportingComponent: 'kubesvc',
      reportingInstance: 'node-1',
    });
  });

  it('Node: quantities by name, a Time of 0 seconds is the epoch (not null), NodeSystemInfo prints every string', () => {
    expect(decoded('nodes', PROTOC_FIXTURES.node.hex)).toEqual({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: 'node-2', creationTimestamp: null, labels: { 'topology.kubernetes.io/zone': 'z1' } },
      spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '1970-01-01T00:00:00Z', lastTransitionTime: null, reason: 'KubeletReady' }],
        addresses: [{ type: 'InternalIP', address: '192.0.2.22' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: '',
          systemUUID: '',
          bootID: '',
          kernelVersion: '',
          osImage: '',
          containerRuntimeVersion: '',
          kubeletVersion: 'v1.33.1',
          kubeProxyVersion: '',
          operatingSystem: '',
          architecture: '',
        },
      },
    });
  });

  it('Service with every kind of field: pointers print when set (false, ""), zero non-pointers are left out, a string targetPort', () => {
    expect(decoded('services', PROTOC_FIXTURES.fullService.hex)).toEqual({
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'full', namespace: 'default', creationTimestamp: null, annotations: { note: 'x' }, finalizers: ['example.com/keep'] },
      spec: {
        ports: [{ name: 'http', protocol: 'TCP', appProtocol: '', port: 80, targetPort: 'web', nodePort: 30081 }],
        selector: { app: 'full' },
        type: 'LoadBalancer',
        externalIPs: ['198.51.100.7'],
        sessionAffinity: 'ClientIP',
        externalTrafficPolicy: 'Local',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        allocateLoadBalancerNodePorts: false,
        internalTrafficPolicy: 'Local',
      },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.9', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: '' }] }] } },
    });
  });
});

describe('DeleteOptions bodies (client-go typed deletes)', () => {
  it('kubectl drain --grace-period=5 sends gracePeriodSeconds 5', () => {
    expect(decodeProtobufDeleteOptions(bytes(DRAIN_DELETE_OPTIONS_HEX))).toEqual({ ok: true, value: { gracePeriodSeconds: 5 } });
  });

  it('another kind in the envelope is a 500 naming the meta scheme, as a plain Go error', () => {
    const r = decodeProtobufDeleteOptions(bytes(KUBECTL_CAPTURES.namespace.hex));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'no kind "Namespace" is registered for version "v1" in scheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"',
      code: 500,
    });
  });

  it('bytes without the magic prefix are a 500 with the serializer error', () => {
    const r = decodeProtobufDeleteOptions(bytes('7b7d'));
    expect(r.ok || r.error.status).toEqual(expect.objectContaining({ code: 500, message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' }));
  });
});

describe('the envelope: refusals before the kind is known', () => {
  it.each([
    ['no bytes', '', 'empty data (<empty>)'],
    ['the magic alone', '6b387300', 'empty body (6b387300)'],
    ['JSON sent as protobuf', Buffer.from('{"kind":"Service"}').toString('hex'), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Service"})'],
    ['typeMeta cut short', '6b387300 0a0d 0a027631', 'unexpected EOF (6b3873000a0d0a027631)'],
    ['tag 0', '6b387300 00', 'proto: Unknown: illegal tag 0 (wire type 0) (6b38730000)'],
    ['raw sent as a varint', '6b387300 1005', 'proto: wrong wireType = 0 for field Raw (6b3873001005)'],
    ['an end-group tag', '6b387300 0c', 'proto: Unknown: wiretype end group for non-group (6b3873000c)'],
    ['a length of eleven varint bytes', '6b387300 0a ffffffffffffffffffff01', 'proto: integer overflow (6b3873000affffffffffffffffffff01)'],
    ['a length negative as a Go int', '6b387300 12 ffffffffffffffffff01', 'proto: negative length found during unmarshaling (6b38730012ffffffffffffffffff01)'],
    // A reader that takes lengths as uint32 reads 2^32+1 as 1 and accepts this body.
    ['a length of 2^32+1 before one byte', '6b387300 12 8180808010 00', 'unexpected EOF (6b38730012818080801000)'],
  ])('%s', (_what, hex, why) => {
    expect(refusal('services', hex)).toEqual({ code: 400, reason: 'BadRequest', message: `the object provided is unrecognized (must be of type Service): ${why}` });
  });

  it('a body longer than 30 bytes is summarised by its first 30 in hex', () => {
    const cut = KUBECTL_CAPTURES.clusterip.hex.slice(0, 120);
    expect(refusal('services', cut).message).toBe(`the object provided is unrecognized (must be of type Service): unexpected EOF (${cut.slice(0, 60)} ...)`);
  });
});

describe('the object: refusals once the kind is known, and what is not refused', () => {
  // An envelope `apiVersion: v1, kind: Service` around the given raw bytes.
  const serviceEnvelope = (rawHex: string): string => {
    const raw = rawHex.replace(/\s+/g, '');
    const length = raw.length / 2;
    if (length > 127) throw new Error('test helper: raw too long for a one-byte length');
    return `6b387300 0a0d0a027631120753657276696365 12${length.toString(16).padStart(2, '0')}${raw}`;
  };

  it('an error inside the object names the kinds, as transformDecodeError does with a known kind', () => {
    // metadata (3 bytes) whose name announces 5 bytes: past the end of the metadata's bytes.
    expect(refusal('services', serviceEnvelope('0a03 0a0577'))).toEqual({ code: 400, reason: 'BadRequest', message: 'Service in version "v1" cannot be handled as a Service: unexpected EOF' });
    // spec.ports[0].port (field 3, a varint) sent length-delimited.
    expect(refusal('services', serviceEnvelope('1204 0a02 1a00')).message).toBe('Service in version "v1" cannot be handled as a Service: proto: wrong wireType = 2 for field Port');
    // spec holds a tag 0.
    expect(refusal('services', serviceEnvelope('1201 00')).message).toBe('Service in version "v1" cannot be handled as a Service: proto: ServiceSpec: illegal tag 0 (wire type 0)');
  });

  it('a Namespace posted to services gets the kind-mismatch text of a JSON body', () => {
    expect(refusal('services', KUBECTL_CAPTURES.namespace.hex)).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'Namespace in version "v1" cannot be handled as a Service: converting (v1.Namespace) to (core.Service): unknown conversion',
    });
  });

  it('a kind the scheme lacks gets the not-registered text of a JSON body', () => {
    // typeMeta {apiVersion: v1, kind: Widget}, no raw.
    expect(refusal('services', '6b387300 0a0c0a0276311206576964676574').message).toBe(
      'Widget in version "v1" cannot be handled as a Service: no kind "Widget" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  it('an empty typeMeta takes the kind and version of the URL; an apiVersion with two slashes counts as empty', () => {
    // raw: metadata {name: "x"}, spec {ports: [{port: 80}]}.
    const raw = '0a030a0178 12040a021850';
    expect(decoded('services', `6b387300 120b${raw.replace(/\s+/g, '')}`)).toMatchObject({ kind: 'Service', apiVersion: 'v1', metadata: { name: 'x' } });
    // typeMeta {apiVersion: "a/b/c"}.
    expect(decoded('services', `6b387300 0a070a05612f622f63 120b${raw.replace(/\s+/g, '')}`)).toMatchObject({ kind: 'Service', apiVersion: 'v1', metadata: { name: 'x' } });
  });

  it('unknown fields (length-delimited, varint, a group) are dropped without an error or a warning, even under Strict', () => {
    // field 99 "hi", field 98 varint 7, group 97 around a varint field 1, then metadata {name: "x"}.
    const raw = '9a06026869 9006 07 8b0608018c06 0a030a0178 12040a021850';
    const r = decode('services', serviceEnvelope(raw), 'Strict');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.warnings).toEqual([]);
    expect(r.value.object).toMatchObject({ metadata: { name: 'x' }, spec: { ports: [{ port: 80 }] } });
  });
});

describe('the generated Unmarshal semantics', () => {
  it('a repeated singular message merges, a list appends, a later scalar wins', () => {
    // metadata {name a}, metadata {labels x=y}, spec {ports [{port 80, port 120}]}, spec {ports [{port 81}]}, metadata {name b}
    const hex = '0a030a0161 0a085a060a0178120179 12060a0418501878 12040a021851 0a030a0162';
    expect(service(hex)).toEqual({
      metadata: { name: 'b', creationTimestamp: null, labels: { x: 'y' } },
      spec: { ports: [{ port: 120, targetPort: 0 }, { port: 81, targetPort: 0 }] },
      status: { loadBalancer: {} },
    });
  });

  it('an int32 keeps the low 32 bits of its varint; a ten-byte -1 is -1', () => {
    // ports [{port: 2^32 + 80}], ports [{port: -1 as ten bytes}]
    expect(service('1208 0a06 18d080808010 120d 0a0b 18ffffffffffffffffff01')).toMatchObject({
      spec: { ports: [{ port: 80 }, { port: -1 }] },
    });
  });

  it('a repeated number may come packed or not; a nil pointer without omitempty prints null; an inline struct prints in its parent', () => {
    // spec {securityContext {supplementalGroups packed [1, 2], then 3 unpacked},
    //       containers [{name "c", livenessProbe {handler {grpc {port 9}}}}]}
    const hex = '1215 7206 2202010220 03 120b 0a0163 5206 0a04 22020809';
    expect(decodeMessage(Pod, bytes(hex))['spec']).toEqual({
      containers: [{ name: 'c', resources: {}, livenessProbe: { grpc: { port: 9, service: null } } }],
      securityContext: { supplementalGroups: [1, 2, 3] },
    });
  });

  it('a map entry without a key sets the empty key; one without a value sets ""', () => {
    // metadata {labels {value "v"}, labels {key "k"}}
    expect(service('0a0a 5a03120176 5a030a016b')).toMatchObject({ metadata: { labels: { '': 'v', k: '' } } });
  });

  it('an illegal tag prints the field number as Go int32 and the whole tag varint', () => {
    // tag varint 2^34: field number int32(2^31) = -2147483648
    expect(serviceError('8080808040')).toBe('proto: Service: illegal tag -2147483648 (wire type 17179869184)');
  });

  it('an unknown field that announces more bytes than the message has is EOF; an illegal wire type is named', () => {
    expect(serviceError('9a0605 6869')).toBe('unexpected EOF');
    expect(serviceError('9f06')).toBe('proto: illegal wireType 7');
  });

  it('a map value may run past its entry (the generated code bounds it by the message); the message then goes on from where the entry ends', () => {
    // metadata: a labels entry of 4 bytes, key "k" then the value's tag; the value's length (10)
    // and bytes lie after the entry, and read again from there they are name "abcdefghi".
    expect(service('0a11 5a04 0a016b 12 0a 09616263646566676869')).toMatchObject({ metadata: { name: 'abcdefghi', labels: { k: '\tabcdefghi' } } });
  });
});
