// Public API of @kubesvc/bootstrap-controller.
export type { BootstrapConfig, BootstrapConfigResult, BootstrapOptions, ErrBootstrapConfig, ErrBootstrapFlag } from './config.js';
export {
  DEFAULT_REPAIR_INTERVAL_MS,
  DEFAULT_SECURE_PORT,
  DEFAULT_SERVICE_PORT,
  DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS,
  INITIAL_REPAIR_TIMEOUT_MS,
  MAX_CIDR_BITS,
  bootstrapConfig,
} from './config.js';
export {
  KUBERNETES_SERVICE_LABELS,
  KUBERNETES_SERVICE_NAME,
  KUBERNETES_SERVICE_NAMESPACE,
  SYSTEM_NAMESPACES,
  checkServiceFormat,
  endpointPorts,
  kubernetesService,
  servicePortsAndType,
} from './kubernetes-service.js';
export type { Action, ApiError, ApiErrorReason, Message, Observation, RangeAllocations, RangeKey, Write, WriteAction } from './messages.js';
export type { ControllerState, LoopName, LoopState, Pass, Phase, QueuedWrite, StepResult, WriteContext } from './controller.js';
export { initialState, step } from './controller.js';
export type {
  DefaultServiceCIDRAction,
  DefaultServiceCIDRCondition,
  DefaultServiceCIDREvent,
  DefaultServiceCIDRInFlight,
  DefaultServiceCIDRMessage,
  DefaultServiceCIDRPhase,
  DefaultServiceCIDRState,
  DefaultServiceCIDRStepResult,
  DefaultServiceCIDRWrite,
} from './default-service-cidr.js';
export {
  DEFAULT_SERVICE_CIDR_CONTROLLER_NAME,
  DEFAULT_SERVICE_CIDR_INTERVAL_MS,
  DEFAULT_SERVICE_CIDR_POLL_MS,
  DEFAULT_SERVICE_CIDR_READY_MESSAGE,
  defaultServiceCIDRInitialized,
  initialDefaultServiceCIDRState,
  stepDefaultServiceCIDR,
} from './default-service-cidr.js';
export * from './simulator/index.js';
