export { decodeObject, formatManifestIssue, parseManifests } from './parse.js';
export type { DecodeObjectResult, ErrDecode, ErrManifest, ManifestIssue, Manifests, ParseManifestsOptions, ParseManifestsResult } from './parse.js';
export { printJSON, printYAML, printYAMLDocuments } from './print.js';
export type { Printable } from './print.js';
export { compareCodePoints, compareYamlKeys, yamlKeyLess } from './key-order.js';
