// The HTTP API's public surface (re-exported by the package index).
export { generateToken, startApiServer } from './server.js';
export { ErrInsecureBind } from './bind-security.js';
export type { ApiServer, ApiServerExtension, ApiServerOptions } from './server.js';
export { generateServingCertificate } from './serving-cert.js';
export type { ServingCertificate, ServingCertificateOptions } from './serving-cert.js';
export type { ApiTable, IncludeObject, TableContext, TablePrinter } from './table-hook.js';
export { formatLabelSelector, labelsMatch, parseLabelSelector } from './label-selector.js';
export type { ErrLabelSelector, LabelOperator, LabelRequirement, LabelSelectorResult } from './label-selector.js';
export { checkFieldSelector, fieldsMatch, parseFieldSelector } from './field-selector.js';
export type { ErrFieldSelector, FieldRequirement, FieldSelectorResult } from './field-selector.js';
export { kubeconfigYaml } from './kubeconfig.js';
export type { ContainerProcess, ContainerRuntime, ContainerTarget, ErrContainerRuntime, ExecRequest, ExitStatus, LogRequest, RuntimeResult } from './container-runtime.js';
export { filesContainerRuntime } from './streaming/files-runtime.js';
