// How a store call is named in etcd_request_duration_seconds: its operation and the group and
// resource its key belongs to.
import { describe, expect, it } from 'vitest';
import type { Compare, TxnOp } from '@kubesvc/store';
import { groupResourceOfKey, txnOperation } from './instrumented-store.js';

describe('groupResourceOfKey', () => {
  const cases: readonly { key: string; group: string; resource: string }[] = [
    { key: '/registry/services/specs/default/web', group: '', resource: 'services' },
    { key: '/registry/services/endpoints/default/web', group: '', resource: 'endpoints' },
    { key: '/registry/endpointslices/default/web-abcde', group: 'discovery.k8s.io', resource: 'endpointslices' },
    { key: '/registry/minions/node-1', group: '', resource: 'nodes' },
    { key: '/registry/deployments/default/app', group: 'apps', resource: 'deployments' },
    { key: '/registry/ranges/serviceips', group: '', resource: 'serviceipallocations' },
    { key: '/registry/ranges/servicenodeports', group: '', resource: 'servicenodeportallocations' },
    { key: '/registry/masterleases/10.0.0.1', group: '', resource: 'masterleases' },
  ];
  it.each(cases)('$key is $resource in "$group"', ({ key, group, resource }) => {
    expect(groupResourceOfKey(key)).toEqual({ group, resource });
  });
});

describe('txnOperation', () => {
  const key = '/registry/services/specs/default/web';
  const cases: readonly { name: string; compares: readonly Compare[]; ops: readonly TxnOp[]; operation: string }[] = [
    { name: 'a put guarded by the key being absent is a create', compares: [{ key, target: 'createRevision', op: '=', value: 0 }], ops: [{ kind: 'put', key, value: '{}' }], operation: 'create' },
    { name: 'a put guarded by a revision is an update', compares: [{ key, target: 'modRevision', op: '=', value: 7 }], ops: [{ kind: 'put', key, value: '{}' }], operation: 'update' },
    { name: 'an unguarded put is an update', compares: [], ops: [{ kind: 'put', key, value: '{}' }], operation: 'update' },
    { name: 'a delete is a delete', compares: [{ key, target: 'modRevision', op: '=', value: 7 }], ops: [{ kind: 'delete', key }], operation: 'delete' },
    { name: 'reads only are a get', compares: [], ops: [{ kind: 'get', key }], operation: 'get' },
    { name: 'the first write names a mixed txn', compares: [], ops: [{ kind: 'get', key: '/registry/ranges/serviceips' }, { kind: 'delete', key }], operation: 'delete' },
  ];
  it.each(cases)('$name', ({ compares, ops, operation }) => {
    expect(txnOperation(compares, ops)).toEqual({ operation, key: ops.find((o) => o.kind !== 'get')?.key ?? ops[0]?.key });
  });
});
