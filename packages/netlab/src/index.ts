// Public API of @kubesvc/netlab.
export type { ClientReport, ClientSpec, ConnectionAnswer, ConnectionResult, ErrConnection } from './agents.js';
export { AGENTS_DIR, ClientRun, countByBackend, parseResult } from './agents.js';
export type { ChiSquareResult } from './chi-square.js';
export { chiSquareSurvival, chiSquareTest, logGamma, upperGammaRegularized } from './chi-square.js';
export type { LabCluster, LabEndpoint, LabProtocol, LabServiceSpec } from './cluster.js';
export { BACKEND_TCP_PORT, BACKEND_UDP_PORT, DEMO_SERVICES, LAB_NAMESPACE, LAB_PORT_NAME, demoCluster, labEndpointSlice, labEndpointSliceOf, labService } from './cluster.js';
export type { CommandResult } from './commands.js';
export { LabCommandError } from './commands.js';
export type { IptablesBackend, LabDescription, LabNftablesSync, LabPod, LabProxyMode, LabSync, Topology } from './lab.js';
export { CLUSTER_CIDR, Lab, LabUnavailableError, NODE_IP, NODE_POD_CIDR, POD_GATEWAY, SERVICE_CIDR, jumpRulesText, labUnavailable } from './lab.js';
export { leftovers, processRunning } from './netns.js';
export { dnatAddress, observedShares, predictedShares, rationalNumber, sharesTable } from './predict.js';
export type { LabNode, LabNodeSpec, MultiNodeLabDescription, MultiNodePod, NodeSync } from './multi-node.js';
export { EXTERNAL_HOST, EXTERNAL_HOST_IP, MultiNodeLab } from './multi-node.js';
export type { NodesDemoOptions, NodesDemoResult } from './nodes-demo.js';
export { describeNodesLab, NODES_SERVICES, nodesDemoCluster, runNodesDemo, SINGLE_BACKEND, TWO_NODES } from './nodes-demo.js';
export type { LabTraceOutcome, LabTraceResult } from './trace-result.js';
