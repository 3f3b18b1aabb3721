// ServiceCIDR and IPAddress (networking.k8s.io/v1) validation on create, update and status
// update.
// upstream (v1.33): pkg/apis/networking/validation/validation.go
//   ValidateIPAddressName, ValidateIPAddress, validateIPAddressParentReference,
//   ValidateIPAddressUpdate, ValidateServiceCIDRName, ValidateServiceCIDR,
//   validateServiceCIDRSpec, ValidateServiceCIDRUpdate, ValidateServiceCIDRStatusUpdate
// upstream (v1.33): staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go (IsValidIP,
//   IsValidCIDR: names.ts isValidIPStrict, isValidCIDRStrict),
//   staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go (IsValidPathSegmentName)
//
// Which text: v1.33.0 includes kubernetes PR 131263 (CHANGELOG-1.33.md lists it among the
// 1.33.0 fixes), which lets a single-stack ServiceCIDR gain a CIDR of the other family (the
// single-to-dual-stack conversion of the default "kubernetes" ServiceCIDR) and moved the spec
// checks into validateServiceCIDRSpec. The v1.33.0 file itself could not be read here: the
// spec checks follow the stored text from after that PR (every CIDR is checked, then the
// one-per-family rule, whose bad value is the CIDR list). The stored text from before it
// checked the families first, stopped there, and printed the whole spec as the bad value.
// The newer stored text differs from the one followed only in marking errors for declarative
// validation and in calling content.IsPathSegmentName, whose messages are
// IsValidPathSegmentName's.
import type { IPAddress, ParentReference, ServiceCIDR } from '../objects/service-cidr.js';
import { fieldPath, type FieldPath } from './field-path.js';
import { goQuote, goStringSlice, goValue, invalid, required, type FieldError } from './field-errors.js';
import {
  isDNS1123Subdomain,
  isValidCIDRStrict,
  isValidIPStrict,
  nameIsDNSSubdomain,
  validatePathSegmentName,
  type ValidateNameFunc,
} from './names.js';
import { FIELD_IMMUTABLE, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { parseCIDRSloppy } from '../net/cidr.js';

const META = fieldPath('metadata');
const CIDRS = fieldPath('spec', 'cidrs');
const PARENT_REF = fieldPath('spec', 'parentRef');

/**
 * ValidateIPAddressName: the name is an IP address in the one spelling Go prints (so two
 * spellings of one address cannot be two objects). A generateName is checked the same way,
 * as a whole address: upstream ignores the prefix flag.
 */
export const validateIPAddressName: ValidateNameFunc = (name) => isValidIPStrict(name);

/** ValidateServiceCIDRName: a DNS subdomain. */
export const validateServiceCIDRName: ValidateNameFunc = nameIsDNSSubdomain;

function pathSegmentErrors(path: FieldPath, value: string): FieldError[] {
  return validatePathSegmentName(value, false).map((msg) => invalid(path, value, msg));
}

/**
 * validateIPAddressParentReference: resource and name are required; the group (empty for the
 * core group Services live in) is a DNS subdomain when set; resource, name and namespace must
 * each be usable as one segment of a request path.
 */
function validateParentReference(ref: ParentReference | null | undefined): FieldError[] {
  if (ref === null || ref === undefined) return [required(PARENT_REF)];
  const errs: FieldError[] = [];
  const group = ref.group ?? '';
  if (group !== '') {
    for (const msg of isDNS1123Subdomain(group)) errs.push(invalid(PARENT_REF.child('group'), group, msg));
  }
  const resource = ref.resource ?? '';
  if (resource === '') errs.push(required(PARENT_REF.child('resource')));
  else errs.push(...pathSegmentErrors(PARENT_REF.child('resource'), resource));
  const name = ref.name ?? '';
  if (name === '') errs.push(required(PARENT_REF.child('name')));
  else errs.push(...pathSegmentErrors(PARENT_REF.child('name'), name));
  const namespace = ref.namespace ?? '';
  if (namespace !== '') errs.push(...pathSegmentErrors(PARENT_REF.child('namespace'), namespace));
  return errs;
}

/** ValidateIPAddress: cluster-scoped metadata named by the IP, and a valid parentRef. */
export function validateIPAddress(ipAddress: IPAddress): FieldError[] {
  const errs = validateObjectMeta(ipAddress.metadata, { namespaced: false, validateName: validateIPAddressName }, META);
  errs.push(...validateParentReference(ipAddress.spec?.parentRef));
  return errs;
}

/** The internal networking.ParentReference as Go's %#v prints it (fields in declaration order). */
function goParentReference(ref: ParentReference): string {
  const field = (name: string, value: string | undefined) => `${name}:${goQuote(value ?? '')}`;
  return `networking.ParentReference{${[
    field('Group', ref.group),
    field('Resource', ref.resource),
    field('Namespace', ref.namespace),
    field('Name', ref.name),
  ].join(', ')}}`;
}

/** apiequality.Semantic.DeepEqual on two *ParentReference: nil equals only nil. */
function sameParentReference(a: ParentReference | null | undefined, b: ParentReference | null | undefined): boolean {
  const absentA = a === null || a === undefined;
  const absentB = b === null || b === undefined;
  if (absentA || absentB) return absentA && absentB;
  return (
    (a.group ?? '') === (b.group ?? '') &&
    (a.resource ?? '') === (b.resource ?? '') &&
    (a.namespace ?? '') === (b.namespace ?? '') &&
    (a.name ?? '') === (b.name ?? '')
  );
}

/**
 * ValidateIPAddressUpdate: the metadata update rules, and spec.parentRef may not change. The
 * registry's update runs validateIPAddress on the new object first (pkg/registry/networking/
 * ipaddress/strategy.go); validateObject does both.
 */
export function validateIPAddressUpdate(ipAddress: IPAddress, old: IPAddress): FieldError[] {
  const errs = validateObjectMetaUpdate(ipAddress.metadata, old.metadata, META);
  const ref = ipAddress.spec?.parentRef;
  if (!sameParentReference(ref, old.spec?.parentRef)) {
    // A nil pointer prints as "null", a set one as the struct it points to.
    errs.push(invalid(PARENT_REF, ref === null || ref === undefined ? null : goValue(goParentReference(ref)), FIELD_IMMUTABLE));
  }
  return errs;
}

/** netutils.IPFamilyOfCIDRString: 4, 6, or 0 (IPFamilyUnknown) for text that does not parse. */
function familyOfCIDR(text: string): 0 | 4 | 6 {
  const parsed = parseCIDRSloppy(text);
  return parsed.ok ? parsed.value.cidr.network.family : 0;
}

/** The internal networking.ServiceCIDRSpec as Go's %#v prints it. */
function goServiceCIDRSpec(cidrs: readonly string[] | null | undefined): string {
  return `networking.ServiceCIDRSpec{CIDRs:${goStringSlice(cidrs).repr}}`;
}

/** validateServiceCIDRSpec: one or two CIDRs, each strictly valid, two only of different families. */
function validateServiceCIDRSpec(cidrs: readonly string[] | null | undefined): FieldError[] {
  const list = cidrs ?? [];
  if (list.length === 0) return [required(CIDRS, 'at least one CIDR required')];
  if (list.length > 2) return [invalid(CIDRS, goValue(goServiceCIDRSpec(cidrs)), 'may only hold up to 2 values')];
  const errs: FieldError[] = [];
  list.forEach((cidr, i) => {
    for (const msg of isValidCIDRStrict(cidr)) errs.push(invalid(CIDRS.index(i), cidr, msg));
  });
  const [first = '', second] = list;
  if (second !== undefined) {
    const family = familyOfCIDR(first);
    if (family !== 0 && family === familyOfCIDR(second)) {
      errs.push(
        invalid(CIDRS, goStringSlice(cidrs), 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'),
      );
    }
  }
  return errs;
}

/** ValidateServiceCIDR: cluster-scoped metadata named as a DNS subdomain, and the spec's CIDRs. */
export function validateServiceCIDR(serviceCIDR: ServiceCIDR): FieldError[] {
  const errs = validateObjectMeta(serviceCIDR.metadata, { namespaced: false, validateName: validateServiceCIDRName }, META);
  errs.push(...validateServiceCIDRSpec(serviceCIDR.spec?.cidrs));
  return errs;
}

/**
 * ValidateServiceCIDRUpdate: the metadata update rules, and spec.cidrs is immutable except for
 * one change: a single CIDR may gain a second, keeping the first (single to dual stack); the
 * new list is then checked as on create. The registry's update runs validateServiceCIDR on
 * the new object first (pkg/registry/networking/servicecidr/strategy.go); validateObject does
 * both.
 */
export function validateServiceCIDRUpdate(serviceCIDR: ServiceCIDR, old: ServiceCIDR): FieldError[] {
  const errs = validateObjectMetaUpdate(serviceCIDR.metadata, old.metadata, META);
  const cidrs = serviceCIDR.spec?.cidrs;
  const now = cidrs ?? [];
  const before = old.spec?.cidrs ?? [];
  if (now.length === before.length) {
    before.forEach((cidr, i) => {
      const current = now[i] ?? '';
      if (current !== cidr) errs.push(invalid(CIDRS.index(i), current, FIELD_IMMUTABLE));
    });
  } else if (before.length === 1 && now.length === 2) {
    const primary = now[0] ?? '';
    if (primary !== before[0]) errs.push(invalid(CIDRS.index(0), primary, FIELD_IMMUTABLE));
    errs.push(...validateServiceCIDRSpec(cidrs));
  } else {
    errs.push(invalid(CIDRS, goStringSlice(cidrs), FIELD_IMMUTABLE));
  }
  return errs;
}

/** ValidateServiceCIDRStatusUpdate: only the metadata update rules; the conditions are not checked. */
export function validateServiceCIDRStatusUpdate(serviceCIDR: ServiceCIDR, old: ServiceCIDR): FieldError[] {
  return validateObjectMetaUpdate(serviceCIDR.metadata, old.metadata, META);
}
