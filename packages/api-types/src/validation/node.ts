// Node validation, limited to the fields this project models.
// upstream (v1.33): pkg/apis/core/validation/validation.go ValidateNode (metadata with
//   ValidateNodeName, spec.podCIDRs: each a valid CIDR, and more than one only as a dual-stack
//   pair), ValidateNodeUpdate (the metadata update rules)
//
// NOT checked: taints, node-specific annotations, resource quantities in capacity and
// allocatable, the update rules on podCIDRs, providerID and configSource, and the status
// address rules. A node that passes here may still be refused by a real apiserver; one refused
// here is refused there too, with the same message for these fields.
import type { Node } from '../objects/node.js';
import { fieldPath } from './field-path.js';
import { goStringSlice, invalid, type FieldError } from './field-errors.js';
import { isValidCIDR, validateNodeName } from './names.js';
import { parseCIDRSloppy } from '../net/cidr.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';

const META = fieldPath('metadata');

/** ValidateNode's checks of the modelled fields, in upstream's order. */
export function validateNode(node: Node): FieldError[] {
  const errs = validateObjectMeta(node.metadata, { namespaced: false, validateName: validateNodeName }, META);
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length === 0) return errs;
  const path = fieldPath('spec', 'podCIDRs');
  cidrs.forEach((cidr, i) => {
    for (const msg of isValidCIDR(cidr)) errs.push(invalid(path.index(i), cidr, msg));
  });
  if (cidrs.length > 1) {
    const families = cidrs.map((c) => {
      const parsed = parseCIDRSloppy(c);
      return parsed.ok ? parsed.value.cidr.network.family : 0;
    });
    const dualStack = families.includes(4) && families.includes(6);
    if (!dualStack || cidrs.length > 2) {
      errs.push(invalid(path, goStringSlice(cidrs), 'may specify no more than one CIDR for each IP family'));
    }
  }
  return errs;
}

/** ValidateNodeUpdate: the metadata update rules, then ValidateNode's. */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  return [...validateObjectMetaUpdate(node.metadata, old.metadata, META), ...validateNode(node)];
}
