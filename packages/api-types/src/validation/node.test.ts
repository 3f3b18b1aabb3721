// Node validation examples, limited to the fields node.ts covers. Messages as upstream's
// pkg/apis/core/validation/validation.go (ValidateNode) renders them.
import { describe, expect, it } from 'vitest';
import { decodeObject } from '../manifest/index.js';
import type { Node } from '../objects/node.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validateNode, validateNodeUpdate } from './node.js';
import { validateObject } from './validate.js';

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

function node(podCIDRs?: string[], name = 'kind-worker'): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: podCIDRs === undefined ? {} : { podCIDR: podCIDRs[0] ?? '', podCIDRs },
    status: {
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: name },
      ],
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.33.0' },
    },
  };
}

describe('validateNode', () => {
  it('accepts a node with one pod CIDR, and with a dual-stack pair', () => {
    expect(validateNode(node(['10.244.0.0/24']))).toEqual([]);
    expect(validateNode(node(['10.244.0.0/24', 'fd00:10:244::/64']))).toEqual([]);
    expect(validateObject(node())).toEqual([]);
  });

  it('wants a DNS-1123 subdomain name and no namespace', () => {
    const bad = node(undefined, 'Worker_1');
    expect(render(validateNode({ ...bad, metadata: { ...bad.metadata, namespace: 'default' } }))).toEqual([
      `metadata.name: Invalid value: "Worker_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  it('refuses a pod CIDR that does not parse', () => {
    expect(render(validateNode(node(['10.244.0.0/33'])))).toEqual([
      'spec.podCIDRs[0]: Invalid value: "10.244.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('allows more than one pod CIDR only as one per family', () => {
    expect(render(validateNode(node(['10.244.0.0/24', '10.245.0.0/24'])))).toEqual([
      'spec.podCIDRs: Invalid value: []string{"10.244.0.0/24", "10.245.0.0/24"}: may specify no more than one CIDR for each IP family',
    ]);
    expect(render(validateNode(node(['10.244.0.0/24', 'fd00::/64', '10.245.0.0/24'])))).toEqual([
      'spec.podCIDRs: Invalid value: []string{"10.244.0.0/24", "fd00::/64", "10.245.0.0/24"}: may specify no more than one CIDR for each IP family',
    ]);
  });

  it('keeps the metadata update rules on update', () => {
    const old = { ...node(['10.244.0.0/24']), metadata: { name: 'kind-worker', uid: 'u1', resourceVersion: '5' } };
    const renamed = { ...old, metadata: { ...old.metadata, name: 'other' } };
    expect(render(validateNodeUpdate(renamed, old))).toContain('metadata.name: Invalid value: "other": field is immutable');
  });
});

describe('Node decoding', () => {
  it('decodes a v1 Node and keeps fields it does not model', () => {
    const decoded = decodeObject({ ...node(['10.244.0.0/24']), status: { ...node().status, images: [{ names: ['pause'] }] } });
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(decoded.value.kind).toBe('Node');
  });

  it('refuses a Node whose address is not a string', () => {
    const decoded = decodeObject({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { addresses: [{ type: 'InternalIP', address: 7 }] } });
    expect(decoded.ok).toBe(false);
  });
});
