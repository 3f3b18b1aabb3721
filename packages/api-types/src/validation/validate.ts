// One entry point for the kinds with validation here, and the 422 error the apiserver
// answers with.
// upstream (v1.32): pkg/registry/*/strategy.go (which Validate* function each kind's
//   strategy calls on create and update)
// upstream (v1.33): pkg/registry/networking/servicecidr/strategy.go,
//   pkg/registry/networking/ipaddress/strategy.go (an update runs the create checks on the
//   new object, then the update rules)
// upstream (v1.32): staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (NewInvalid,
//   which prints the qualified kind: `EndpointSlice.discovery.k8s.io "x" is invalid: ...`)
//
// What the request path does besides validation is left to callers: v1 defaulting
// (defaultObject), and the generic registry's common ObjectMeta checks (rest.BeforeCreate runs
// them only after the kind's own validation passed; rest.BeforeUpdate runs them first). For
// Services, whose registry also fills clusterIPs and the IP-family fields before validating,
// validateServiceCreate and validateServiceUpdate (service-request.ts) run the whole path.
import type { KubeObject } from '../objects/kinds.js';
import type { TaggedError } from '../result.js';
import { validateDeployment, validateReplicaSet } from './apps.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './endpoint-slice.js';
import { validateEndpoints, validateEndpointsUpdate } from './endpoints.js';
import { invalidError, type ApiStatus, type FieldError, type GroupKindInput } from './field-errors.js';
import { validateNamespace, validateNamespaceUpdate } from './namespace.js';
import { validateNode, validateNodeUpdate } from './node.js';
import { validatePod } from './pod.js';
import { validateService, validatePreparedServiceUpdate } from './service.js';
import { validateIPAddress, validateIPAddressUpdate, validateServiceCIDR, validateServiceCIDRUpdate } from './service-cidr.js';

const GROUP_OF_KIND: Readonly<Record<string, string>> = {
  EndpointSlice: 'discovery.k8s.io',
  ServiceCIDR: 'networking.k8s.io',
  IPAddress: 'networking.k8s.io',
  Deployment: 'apps',
  ReplicaSet: 'apps',
  Scale: 'autoscaling',
};

/** The GroupKind NewInvalid is given for a kind: core kinds have the empty group. */
export function groupKindOf(kind: string): GroupKindInput {
  const group = Object.hasOwn(GROUP_OF_KIND, kind) ? GROUP_OF_KIND[kind] : undefined;
  return group === undefined ? kind : { group, kind };
}

function sameKind<T extends KubeObject>(object: T, old: KubeObject): T {
  if (old.kind !== object.kind) {
    // A caller mixing kinds is a programming error, not bad input.
    throw new TypeError(`cannot validate a ${object.kind} update against a ${old.kind}`);
  }
  return old as T;
}

/**
 * The errors the kind's strategy reports on create (no `old`) or update. Expects a
 * defaulted object. Kinds without validation here (Event, RangeAllocation, Status) give no
 * errors. A ServiceCIDR's status update is checked with validateServiceCIDRStatusUpdate. Pods are checked only on the fields this project models (see pod.ts), and a pod
 * update is checked like a create.
 */
export function validateObject(object: KubeObject, old?: KubeObject): FieldError[] {
  switch (object.kind) {
    case 'Service':
      return old === undefined ? validateService(object) : validatePreparedServiceUpdate(object, sameKind(object, old));
    case 'Endpoints':
      return old === undefined ? validateEndpoints(object) : validateEndpointsUpdate(object, sameKind(object, old));
    case 'EndpointSlice':
      return old === undefined
        ? validateEndpointSlice(object)
        : validateEndpointSliceUpdate(object, sameKind(object, old));
    case 'Namespace':
      return old === undefined ? validateNamespace(object) : validateNamespaceUpdate(object, sameKind(object, old));
    case 'Pod':
      if (old !== undefined) sameKind(object, old);
      return validatePod(object);
    case 'Node':
      return old === undefined ? validateNode(object) : validateNodeUpdate(object, sameKind(object, old));
    case 'ServiceCIDR':
      return old === undefined
        ? validateServiceCIDR(object)
        : [...validateServiceCIDR(object), ...validateServiceCIDRUpdate(object, sameKind(object, old))];
    case 'IPAddress':
      return old === undefined
        ? validateIPAddress(object)
        : [...validateIPAddress(object), ...validateIPAddressUpdate(object, sameKind(object, old))];
    case 'Deployment':
      return validateDeployment(object, old === undefined ? undefined : sameKind(object, old));
    case 'ReplicaSet':
      return validateReplicaSet(object, old === undefined ? undefined : sameKind(object, old));
    default:
      return [];
  }
}

function nameOf(object: KubeObject): string {
  return object.metadata.name ?? '';
}

/** The 422 Status the apiserver returns for these errors (errors.NewInvalid). */
export function invalidStatus(object: KubeObject, errors: readonly FieldError[]): ApiStatus {
  return invalidError(groupKindOf(object.kind), nameOf(object), errors).status;
}

/** The Status message alone: `Service "web" is invalid: [...]`. */
export function invalidMessage(object: KubeObject, errors: readonly FieldError[]): string {
  return invalidError(groupKindOf(object.kind), nameOf(object), errors).message;
}

/**
 * The apiserver's 422 as an error value: `message` is the Status message
 * (`Service "web" is invalid: [...]`), `causes` every field error behind it, in upstream's
 * order (repeats kept, as the Status's causes keep them; the message drops them).
 */
export interface ErrInvalid extends TaggedError<'ErrInvalid'> {
  readonly causes: readonly FieldError[];
}

/** ErrInvalid for these errors on this object, as errors.NewInvalid words it. */
export function errInvalid(object: KubeObject, causes: readonly FieldError[]): ErrInvalid {
  return { _tag: 'ErrInvalid', message: invalidMessage(object, causes), causes: [...causes] };
}
