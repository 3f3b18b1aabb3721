// The data the explorer page shows, as the server sends it (JSON). The server computes it with
// the model packages (proxy-iptables, discovery, ipallocator); the page only draws it, so the
// page's bundle carries none of them.
import type { Result, TaggedError } from '@kubesvc/api-types';

/** One column of the services table, as the API's Table for `kubectl get svc` defines it. */
export interface ServicesTableColumn {
  readonly name: string;
  /** 0: shown by `kubectl get svc`; 1: added by `-o wide`. */
  readonly priority: number;
}

export interface ServicesTableRow {
  readonly namespace: string;
  readonly name: string;
  readonly cells: readonly string[];
  /** metadata.creationTimestamp in ms since the epoch: the page keeps the Age cell current. */
  readonly createdMs?: number;
}

export interface ServicePort {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  readonly targetPort: string;
  readonly nodePort?: number;
}

export interface ServiceEndpoint {
  readonly ip: string;
  /** `ready`, `not ready` or `terminating`, from the EndpointSlice conditions. */
  readonly state: 'ready' | 'not ready' | 'terminating';
  readonly ports: readonly string[];
  readonly nodeName?: string;
  readonly target?: string;
  /** The target pod is a real network namespace (`kubesvc up --dataplane netns`). */
  readonly sandbox?: boolean;
}

export interface ServiceDetail {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly clusterIPs: readonly string[];
  readonly externalName?: string;
  readonly sessionAffinity: string;
  readonly ports: readonly ServicePort[];
  readonly endpoints: readonly ServiceEndpoint[];
  /** The variables a pod started after this Service gets for it, in the kubelet's order. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  /** The records the cluster DNS answers for it, one zone-file line each. */
  readonly dns: readonly string[];
}

/** A node of the rule graph: a chain, or where a packet ends (DNAT to an endpoint, a verdict). */
export interface RuleGraphNode {
  readonly id: string;
  readonly kind: 'chain' | 'dnat' | 'verdict';
  readonly label: string;
  /** `namespace/name` of the Service the chain belongs to. */
  readonly service?: string;
  /** For a KUBE-SEP- chain: the probability of the rule that jumps to it, as written (`1` when none). */
  readonly probability?: string;
}

export interface RuleGraphEdge {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** The match part of the rule, as kube-proxy writes it. */
  readonly match: string;
  /** The whole rule (`-A CHAIN ... -j TARGET`), shown on hover. */
  readonly rule: string;
  /** `--probability` as written, and as the kernel applies it (the fixed-point value, printed as iptables-save does). */
  readonly probability?: { readonly written: string; readonly kernel: string };
}

export interface RuleGraph {
  readonly nodes: readonly RuleGraphNode[];
  readonly edges: readonly RuleGraphEdge[];
}

/** An IP the allocator holds, by offset from the range's first address. */
export interface AllocatedIP {
  readonly offset: number;
  readonly ip: string;
  /** `namespace/name` of each Service that holds it (two or more: a duplicate). */
  readonly holders: readonly string[];
  /** Held in the stored bitmap by no Service: the repair run reports it leaked. */
  readonly leaked: boolean;
}

export interface AllocationRange {
  readonly range: string;
  /** Addresses in the range that can be handed out (offset 0 is the first of them). */
  readonly size: number;
  readonly firstIP: string;
  /** Offsets below this form the static band. */
  readonly staticSize: number;
  readonly used: readonly AllocatedIP[];
}

export interface AllocationMap {
  readonly ranges: readonly AllocationRange[];
  /** The repair run's events (duplicates, out of range, not allocated), one line each. */
  readonly repairEvents: readonly string[];
  readonly fromStoredSnapshot: boolean;
}

export interface ExplorerModel {
  /** `live` for a running control plane, `dump` for a file (read-only). */
  readonly mode: 'live' | 'dump';
  /** Where the data comes from: the API's URL or the dump's file name. */
  readonly source: string;
  /** Increases with every change the page is sent. */
  readonly generation: number;
  readonly servicesTable: { readonly columns: readonly ServicesTableColumn[]; readonly rows: readonly ServicesTableRow[] };
  readonly services: readonly ServiceDetail[];
  readonly rules: RuleGraph;
  readonly allocation: AllocationMap;
  /** The source's Nodes, by name; absent or empty when it has none (the page then shows no node picker). */
  readonly nodes?: readonly ExplorerNode[];
  /** The Node whose kube-proxy the rules are drawn as; absent: the node of the server's flags. */
  readonly node?: string;
  /**
   * The pods that are real network namespaces (`kubesvc up --dataplane netns`), by namespace
   * and name: the pods a replay can send from. Absent when the source runs no pod network.
   */
  readonly sandboxes?: readonly ExplorerPod[];
}

/** A pod that is a network namespace. */
export interface ExplorerPod {
  readonly namespace: string;
  readonly name: string;
  readonly ip: string;
}

/** A Node of the source, as kube-proxy on it knows itself. */
export interface ExplorerNode {
  readonly name: string;
  /** Its topology.kubernetes.io/zone label; '' when it has none. */
  readonly zone: string;
  /** Its InternalIP addresses. */
  readonly nodeIPs: readonly string[];
}

/** A node the request names that the source has no Node of (the message names the ones it has). */
export type ErrExplorerNode = TaggedError<'ErrExplorerNode'>;

/** The model as kube-proxy on one Node sees it, or why there is no such Node. */
export type ModelAnswer = Result<ExplorerModel, ErrExplorerNode>;

/** The trace form's fields. */
export interface TraceRequest {
  readonly source: string;
  /** `IP:PORT`, or an IP for ICMP. */
  readonly destination: string;
  readonly protocol: 'tcp' | 'udp' | 'sctp' | 'icmp';
  /** Send the packet on this Node of the source (its kube-proxy's rules, its node IPs); absent: the server's flags. */
  readonly node?: string;
}

export interface TraceOutcomeView {
  /** `dnat`, `accept`, `drop`, `reject` or `no-match`. */
  readonly outcome: string;
  readonly destination: string;
  /** The probability kube-proxy means (each `--probability` read as the 1/n it stands for), as a fraction: `1/3`. */
  readonly probability: string;
  /** The exact probability with the decimals as written (`3333333333/10000000000`), its decimal, and the kernel's decimal. */
  readonly written: string;
  readonly decimal: string;
  readonly kernel: string;
  readonly masqueraded: boolean;
  /** The chains the packet walked for this outcome, in order. */
  readonly chains: readonly string[];
}

/** A trace that cannot run: the packet does not parse, or the ruleset refuses it (the message says which). */
export type ErrExplorerTrace = TaggedError<'ErrExplorerTrace'>;

/** A trace's outcomes, one per way the packet can go, or why there are none. */
export type TraceAnswer = Result<readonly TraceOutcomeView[], ErrExplorerTrace | ErrExplorerNode>;

/** One packet traced as sent on every Node of the source: `kubesvc trace --all-nodes`. */
export interface NodeMatrixRequest {
  /** The source address; '' for the default (a pod's, or an outside one for a node port). */
  readonly source: string;
  /** `IP:PORT`; with `nodePort`, `:PORT` is the port on each node's first IP. */
  readonly destination: string;
  readonly protocol: 'tcp' | 'udp' | 'sctp' | 'icmp';
  /** The destination is a node port: the packet comes from outside to the node's address. */
  readonly nodePort: boolean;
}

export interface NodeMatrixOutcome {
  /** `dnat`, `accept`, `drop`, `reject` or `no-match`. */
  readonly outcome: string;
  /** The endpoint of a DNAT; the packet's destination otherwise. */
  readonly destination: string;
  /** The probability kube-proxy means, as a fraction (`1/2`). */
  readonly probability: string;
  /** The exact probability of the decimals as written, and its decimal (`kubesvc trace --all-nodes`'s PROBABILITY and DECIMAL). */
  readonly written: string;
  readonly decimal: string;
  /** Why a drop or reject happens (the rule's comment); '' for a DNAT. */
  readonly why: string;
}

/** One Node's row of the matrix. */
export interface NodeMatrixRow {
  readonly node: string;
  readonly zone: string;
  /** The packet's destination as sent on this node (`IP:PORT`). */
  readonly destination: string;
  readonly outcomes: readonly NodeMatrixOutcome[];
}

/** The matrix, one row per Node by name, or why there is none (no Nodes, a packet that does not parse). */
export type NodeMatrixAnswer = Result<readonly NodeMatrixRow[], ErrExplorerTrace | ErrExplorerNode>;

/** Real requests sent from a pod that is a network namespace (`kubesvc up --dataplane netns`). */
export interface ReplayRequest {
  /** The pod that sends them, `namespace/name`. */
  readonly from: string;
  /** `IP:PORT` (or `NAME:PORT`, resolved by the pod's DNS). */
  readonly destination: string;
  /** Only `tcp`: each request is an HTTP GET of /hostname, which names the pod that answers. */
  readonly protocol: 'tcp';
  /** How many requests, 1 to 200. */
  readonly count: number;
}

/** How many of the requests one pod answered. */
export interface ReplayAnswerCount {
  /** The answering pod's name, as its /hostname says. */
  readonly pod: string;
  readonly count: number;
}

export interface ReplayResult {
  readonly from: string;
  readonly destination: string;
  readonly count: number;
  /** By count, most first; then by name. */
  readonly answers: readonly ReplayAnswerCount[];
  /** Requests that got no answer (a timeout, a refusal, an empty reply, or not sent in the time bound). */
  readonly failures: number;
  /** Why, for the first few failures: curl's exit or the runtime's message. */
  readonly failureReasons: readonly string[];
}

/** A replay that cannot run: a bad request, a pod that is not a running network namespace. */
export type ErrExplorerReplay = TaggedError<'ErrExplorerReplay'>;

/** The source cannot send real requests (no pod network): the page hides the control. */
export type ErrExplorerUnavailable = TaggedError<'ErrExplorerUnavailable'>;

export type ReplayAnswer = Result<ReplayResult, ErrExplorerReplay | ErrExplorerUnavailable>;
