// Services: status reset on create and kept on update (the main resource never writes it),
// Service validation with the cluster's IP families, and the allocation hooks: ClusterIPs and
// NodePorts taken before the write, given back when it fails or on delete; a delete takes the
// Service's Endpoints of the same name in the same txn.
// upstream: pkg/registry/core/service/strategy.go (PrepareForCreate, PrepareForUpdate),
//           pkg/registry/core/service/storage/storage.go (beginCreate, beginUpdate, afterDelete)
import type { KubeObject, Service } from '@kubesvc/api-types';
import { validateServiceCreate, validateServiceUpdate } from '../pure-adapters.js';
import { heldBy, planCreate, planUpdate } from '../service-alloc.js';
import { keepStoredStatus, type RestStrategy } from '../strategy.js';

export const serviceStrategy: RestStrategy = {
  prepareForCreate(object: KubeObject): KubeObject {
    return object.kind === 'Service' ? { ...object, status: { loadBalancer: {} } } : object;
  },
  validate: (object, net) => validateServiceCreate(object as Service, net),
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject {
    return object.kind === 'Service' && old.kind === 'Service' ? keepStoredStatus(object, old) : object;
  },
  validateUpdate: (object, old, net) => validateServiceUpdate(object as Service, old as Service, net),
  // The Endpoints key (resources.ts: endpoints' prefix), written out: the table imports this file.
  deletedWith: (namespace, name) => [`/registry/services/endpoints/${namespace}/${name}`],
  allocation: { planCreate, planUpdate, heldBy },
};
