export {
  cidrArb,
  ipArb,
  ipInCidrArb,
  ipOutsideCidrArb,
  ipSpellingArb,
  ipv4Arb,
  ipv6Arb,
  portArb,
  portRangeArb,
} from './net.js';
export type { CidrArbOptions, IPSpelling, OutsideOptions, PortRangeSample, SpellingOptions } from './net.js';
export {
  dns1035LabelArb,
  dns1123LabelArb,
  dns1123SubdomainArb,
  ianaSvcNameArb,
  labelKeyArb,
  labelsArb,
  labelValueArb,
} from './names.js';
export {
  endpointSliceArb,
  endpointsArb,
  eventArb,
  kubeObjectArb,
  namespaceArb,
  objectMetaArb,
  podArb,
  podIPv4Arb,
  podIPv6Arb,
  publicIPArb,
  rangeAllocationArb,
  serviceArb,
  serviceIPv4Arb,
  serviceIPv6Arb,
  statusArb,
} from './objects.js';
export { endpointsMutantArb, kubeObjectMutantArb, otherMutantArb, serviceMutantArb } from './mutants.js';
export type { Mutant } from './mutants.js';
export { shapeMutantArb } from './shape-mutants.js';
