// Public API of @kubesvc/netlab.
export type { ClientReport, ClientSpec, ConnectionAnswer, ConnectionResult, ErrConnection } from './agents.js';
export { AGENTS_DIR, ClientRun, countByBackend, parseResult } from './agents.js';
export type { ChiSquareResult } from './chi-square.js';
export { chiSquareSurvival, chiSquareTest, logGamma, upperGammaRegularized } from './chi-square.js';
export type { LabCluster, LabProtocol, LabServiceSpec } from './cluster.js';
export { BACKEND_TCP_PORT, BACKEND_UDP_PORT, DEMO_SERVICES, LAB_NAMESPACE, LAB_PORT_NAME, demoCluster, labEndpointSlice, labService } from './cluster.js';
export type { CommandResult } from './commands.js';
export { LabCommandError } from './commands.js';
export type { IptablesBackend, LabDescription, LabNftablesSync, LabPod, LabProxyMode, LabSync, Topology } from './lab.js';
export { CLUSTER_CIDR, Lab, LabUnavailableError, NODE_IP, NODE_POD_CIDR, POD_GATEWAY, SERVICE_CIDR, jumpRulesText, labUnavailable, leftovers, processRunning } from './lab.js';
export { dnatAddress, observedShares, predictedShares, rationalNumber, sharesTable } from './predict.js';
