// `kubesvc up` (= `npm start`): a local control plane that kubectl, dig and curl talk to. The
// flags are kube-apiserver's where it has one (--service-cluster-ip-range, --secure-port, ...);
// the startup checks and their messages are upstream's (bootstrapConfig). It runs until Ctrl-C
// or SIGTERM, then stops as kube-apiserver does.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import type { Logger } from '@kubesvc/apiserver';
import { DEFAULT_KUBE_EMULATION_VERSION, MIN_KUBE_EMULATION_VERSION, parseClusterIPFeatureGates, type ClusterIPFeatureGates } from '@kubesvc/api-types';
import { usageError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { FILE_MODES } from '../up/atomic-file.js';
import { parseGoDuration } from '../up/duration.js';
import { MAX_NODES, upNodes } from '../up/nodes.js';
import type { RunningCluster, StepReporter, UpOptions } from '../up/start-cluster.js';
import { clusterIPAllocationText, defaultNodeName, PROXY_PORTS_FILE, UP_DEFAULTS } from '../up/up-defaults.js';
import { UP_STATUS_FILE, type UpStatus } from '../up/up-status.js';
import type { CliCommand, CommandContext } from './command.js';

interface UpCommandOptions {
  readonly dataDir: string;
  readonly bindAddress: string;
  readonly securePort: string;
  readonly port?: string;
  readonly serviceClusterIpRange: string;
  readonly serviceNodePortRange: string;
  readonly advertiseAddress?: string;
  readonly endpointReconcilerType: UpOptions['endpointReconcilerType'];
  readonly kubernetesServiceNodePort: string;
  readonly dnsPort: string;
  readonly proxyMode: UpOptions['proxyMode'];
  readonly dataplane: 'none' | 'netns';
  readonly nodeName: string;
  readonly nodes: string;
  readonly nodeZones?: string;
  readonly nodeRegion?: string;
  readonly nodeCpu: string;
  readonly nodeWorkers?: string;
  readonly tablesFilesInterval?: string;
  readonly clusterCidr: string;
  readonly etcdServers?: string;
  readonly apiserverCount: string;
  readonly controllers: 'true' | 'false';
  readonly repairServicesInterval?: string;
  readonly endpointReconcileInterval?: string;
  readonly masterLeaseTtl?: string;
  readonly etcdCompactionInterval?: string;
  readonly featureGates?: string;
  readonly emulatedVersion?: string;
  readonly maxEndpointsPerSlice: string;
  readonly mirroringMaxEndpointsPerSubset: string;
}

/** Each use of a repeatable flag adds to the earlier ones, as kube-apiserver's --feature-gates and --emulated-version do. */
function appendCommaSeparated(value: string, previous: string | undefined): string {
  return previous === undefined ? value : `${previous},${value}`;
}

/**
 * --feature-gates and --emulated-version, read by api-types as kube-apiserver v1.33 reads
 * them; a refusal is a usage error with upstream's message, and what kube-apiserver logs as a
 * warning (a GA gate set by hand) is a W line.
 */
function featureGates(io: CliIo, options: UpCommandOptions): ClusterIPFeatureGates {
  const parsed = parseClusterIPFeatureGates({
    ...optional('featureGates', options.featureGates),
    ...optional('emulatedVersion', options.emulatedVersion),
  });
  if (!parsed.ok) throw usageError(parsed.error.message);
  for (const warning of parsed.value.warnings) io.err(`W ${warning}\n`);
  return parsed.value;
}

function duration(flag: string, value: string | undefined, minMs: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseGoDuration(value);
  if (ms === undefined || ms < minMs) throw usageError(minMs === 0 ? `${flag} must be a duration, such as 30s or 0, not "${value}"` : `${flag} must be a duration of at least ${minMs} ms, such as 3s or 500ms, not "${value}"`);
  return ms;
}

/** --etcd-compaction-interval: 0 turns compaction off, as kube-apiserver's does; otherwise at least a second. */
function compactionInterval(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseGoDuration(value);
  if (ms === undefined || (ms > 0 && ms < 1000)) throw usageError(`--etcd-compaction-interval must be 0 (off) or a duration of at least 1s, such as 5m0s, not "${value}"`);
  return ms;
}

function etcdServers(value: string | undefined): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const urls = value.split(',').map((u) => u.trim()).filter((u) => u !== '');
  for (const u of urls) if (!/^https?:\/\/[^/\s]+\/?$/.test(u)) throw usageError(`--etcd-servers takes etcd client URLs such as http://127.0.0.1:2379, comma-separated, not "${u}"`);
  if (urls.length === 0) throw usageError('--etcd-servers needs at least one URL');
  return urls;
}

function port(flag: string, value: string, allowZero: boolean): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535 || (!allowZero && n === 0)) throw usageError(`${flag} must be a port number${allowZero ? ' (0 picks a free one)' : ''}, not "${value}"`);
  return n;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function secondsOf(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/**
 * An int32 flag of kube-controller-manager's with its bounds, refused as pflag and the
 * controller options' Validate word it.
 * upstream (v1.33): cmd/kube-controller-manager/app/options/endpointslicecontroller.go and
 * endpointslicemirroringcontroller.go (Validate: 1 to 1000)
 */
function boundedInt(flag: string, value: string, min: number, max: number): number {
  if (!/^[+-]?\d+$/.test(value)) throw usageError(`invalid argument "${value}" for "--${flag}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`);
  const n = Number(value);
  if (n < min) throw usageError(`${flag} must not be less than ${min}, but got ${n}`);
  if (n > max) throw usageError(`${flag} must not be more than ${max}, but got ${n}`);
  return n;
}

function apiserverCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw usageError(`--apiserver-count must be a positive number, not "${value}"`);
  return n;
}

/** Steps as spinner lines on a terminal, as plain lines elsewhere (a pipe, a log file, a test). */
function stepReporter(io: CliIo, ora: typeof import('ora').default): StepReporter {
  return {
    async step(title, work, done) {
      const spinner = io.stderrIsTTY ? ora({ text: title, stream: process.stderr }).start() : undefined;
      try {
        const value = await work();
        const line = done === undefined ? title : done(value);
        if (spinner !== undefined) spinner.succeed(line);
        else io.err(`✓ ${line}\n`);
        return value;
      } catch (error) {
        if (spinner !== undefined) spinner.fail(title);
        else io.err(`✗ ${title}\n`);
        throw error;
      }
    },
    note(text) {
      io.err(`✓ ${text}\n`);
    },
  };
}

function logger(io: CliIo): Logger {
  return {
    log(level, message) {
      if (level === 'info' && io.env['KUBESVC_VERBOSE'] === undefined) return;
      io.err(`${level === 'error' ? 'E' : level === 'warning' ? 'W' : 'I'} ${message}\n`);
    },
  };
}

function summary(cluster: RunningCluster): string {
  const lines = [
    '',
    'kubesvc is up.',
    `  API server       ${cluster.apiURL}  (advertised as ${cluster.advertiseAddress})`,
    `  kubernetes       default/kubernetes at ${cluster.kubernetesClusterIP}:443`,
    `  ClusterIPs       ${clusterIPAllocationText(cluster.clusterIPAllocation)}`,
  ];
  const dns = cluster.agent.dns;
  if (dns !== undefined) lines.push(`  cluster DNS      ${dns.host}:${dns.port}  (dig @${dns.host} -p ${dns.port} kubernetes.default.svc.cluster.local)`);
  if (cluster.explorerURL !== undefined) lines.push(`  explorer         ${cluster.explorerURL}`);
  if (cluster.agent.iptablesFiles !== undefined) lines.push(`  kube-proxy       iptables rules in ${cluster.agent.iptablesFiles.rules}`);
  if (cluster.agent.nftablesFiles !== undefined) lines.push(`  kube-proxy       nftables (v1.33) table in ${cluster.agent.nftablesFiles.ruleset}, last sync in ${cluster.agent.nftablesFiles.lastSync}`);
  if (cluster.agent.proxyMode === 'userspace') lines.push(`  kube-proxy       userspace: kubesvc proxy-ports --data-dir ${cluster.dataDir}`);
  for (const p of cluster.nodeProxies) lines.push(`  kube-proxy       ${p.nodeName}: ${p.proxyMode} rules in ${p.rules}`);
  lines.push(`  data             ${cluster.dataDir}`, '', 'Use it with:', `  export KUBECONFIG=${cluster.kubeconfig}`, '  kubectl get svc -A', '', 'Ctrl-C stops it; a restart on the same data dir keeps everything.', '');
  return lines.join('\n');
}

export { PROXY_PORTS_FILE } from '../up/up-defaults.js';

/** How often <data-dir>/proxy-ports.json is brought up to date. */
const PROXY_PORTS_INTERVAL_MS = 500;

async function run(context: CommandContext, options: UpCommandOptions): Promise<void> {
  const { io } = context;
  const gates = featureGates(io, options);
  const nodes = upNodes({
    nodes: options.nodes,
    nodeName: options.nodeName,
    ...optional('zones', options.nodeZones),
    ...optional('region', options.nodeRegion),
    cpu: options.nodeCpu,
    clusterCIDR: options.clusterCidr,
  });
  if (!nodes.ok) throw usageError(nodes.error);
  const up: UpOptions = {
    dataDir: options.dataDir,
    bindAddress: options.bindAddress,
    securePort: options.port === undefined ? port('--secure-port', options.securePort, true) : port('--port', options.port, true),
    serviceClusterIPRange: options.serviceClusterIpRange,
    serviceNodePortRange: options.serviceNodePortRange,
    ...(options.advertiseAddress === undefined ? {} : { advertiseAddress: options.advertiseAddress }),
    endpointReconcilerType: options.endpointReconcilerType,
    kubernetesServiceNodePort: port('--kubernetes-service-node-port', options.kubernetesServiceNodePort, true),
    dnsPort: port('--dns-port', options.dnsPort, true),
    proxyMode: options.proxyMode,
    dataplane: options.dataplane === 'netns' ? 'netns' : 'files',
    nodeName: options.nodeName,
    nodes: nodes.nodes,
    clusterCIDR: options.clusterCidr,
    ...optional('etcdServers', etcdServers(options.etcdServers)),
    ...optional('apiserverCount', apiserverCount(options.apiserverCount)),
    runControllers: options.controllers === 'true',
    ...optional('repairIntervalMs', duration('--repair-services-interval', options.repairServicesInterval, 100)),
    ...optional('endpointIntervalMs', duration('--endpoint-reconcile-interval', options.endpointReconcileInterval, 100)),
    ...optional('leaseTtlSeconds', secondsOf(duration('--master-lease-ttl', options.masterLeaseTtl, 1000))),
    ...optional('compactionIntervalMs', compactionInterval(options.etcdCompactionInterval)),
    clusterIPAllocation: gates.allocation,
    maxEndpointsPerSlice: boundedInt('max-endpoints-per-slice', options.maxEndpointsPerSlice, 1, 1000),
    mirroringMaxEndpointsPerSubset: boundedInt('mirroring-max-endpoints-per-subset', options.mirroringMaxEndpointsPerSubset, 1, 1000),
    preferSameTrafficDistribution: gates.enabled.PreferSameTrafficDistribution,
    ...optional('nodeWorkers', options.nodeWorkers === undefined ? undefined : boundedInt('node-workers', options.nodeWorkers, 0, MAX_NODES)),
    ...optional('tablesFilesIntervalMs', duration('--tables-files-interval', options.tablesFilesInterval, 0)),
  };
  // Loaded here, not at the top: the offline commands share this module graph and need neither.
  const [{ startCluster, writeFileAtomicSync }, { default: ora }, { fileRefresher }] = await Promise.all([
    import('../up/start-cluster.js'),
    import('ora'),
    import('../up/file-refresher.js'),
  ]);
  const log = logger(io);
  const cluster = await startCluster(up, stepReporter(io, ora), log);
  // For `kubesvc status` and `kubesvc down`; private, as the kubeconfig beside it.
  const statusPath = join(cluster.dataDir, UP_STATUS_FILE);
  const dns = cluster.agent.dns;
  const status: UpStatus = {
    pid: process.pid,
    startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    dataDir: cluster.dataDir,
    apiURL: cluster.apiURL,
    advertiseAddress: cluster.advertiseAddress,
    kubeconfig: cluster.kubeconfig,
    ...(dns === undefined ? {} : { dns: `${dns.host}:${dns.port}` }),
    proxyMode: cluster.agent.proxyMode,
    ...(cluster.agent.iptablesFiles !== undefined ? { rules: cluster.agent.iptablesFiles.rules } : cluster.agent.nftablesFiles !== undefined ? { rules: cluster.agent.nftablesFiles.ruleset } : {}),
    nodes: nodes.nodes.map((n) => n.name),
    ...(cluster.nodeProxies.length === 0 ? {} : { nodeRules: cluster.nodeProxies.map((p) => ({ node: p.nodeName, rules: p.rules })) }),
  };
  writeFileAtomicSync(statusPath, `${JSON.stringify(status, null, 2)}\n`, FILE_MODES.secret);
  // The userspace proxy's ports for `kubesvc proxy-ports`, kept current from a timer. A write
  // that fails is logged and tried again at the next tick (file-refresher.ts): the process
  // serves the API and the DNS, and a file it cannot write must not end it.
  const ports = fileRefresher({
    path: join(cluster.dataDir, PROXY_PORTS_FILE),
    what: 'proxy-ports',
    render: () => `${JSON.stringify(cluster.agent.proxyPorts(), null, 2)}\n`,
    write: (path, text) => writeFileAtomicSync(path, text, FILE_MODES.public),
    logger: log,
    intervalMs: PROXY_PORTS_INTERVAL_MS,
  });
  ports.tick();
  const timer = setInterval(() => ports.tick(), PROXY_PORTS_INTERVAL_MS);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.err(`\n${signal}: stopping (removing this apiserver's endpoint and lease, stopping the controllers, closing the store)\n`);
      clearInterval(timer);
      void cluster.stop().then(() => {
        rmSync(statusPath, { force: true });
        io.err('stopped\n');
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // The summary comes last: once it is printed, the status file and the ports file have been
    // written (or their failure logged) and Ctrl-C or SIGTERM stops the process cleanly, so a
    // script that waits for it may signal at once.
    io.out(summary(cluster));
  });
}

export const upCommand: CliCommand = {
  name: 'up',
  register(program: Command, context: CommandContext): void {
    program
      .command('up')
      .summary('run a local control plane that kubectl, dig and curl talk to (npm start)')
      .description(
        'Starts, in one process: the store (SQLite in --data-dir, or etcd with --etcd-servers, which several kubesvc up processes can share), the API server over TLS on --bind-address:--secure-port with a bearer token, the controllers (the kubernetes Service at the first IP of the range, the repair loops, endpoints, EndpointSlices, a simulated kubelet), and a node agent with the cluster DNS and kube-proxy. Writes <data-dir>/kubeconfig. Ctrl-C or SIGTERM stops it cleanly; a restart on the same data dir keeps everything.',
      )
      .option('--data-dir <dir>', 'where the state, the token, the certificate and the kubeconfig live', UP_DEFAULTS.dataDir)
      .option('--bind-address <ip>', 'the address the API listens on', UP_DEFAULTS.bindAddress)
      .option('--secure-port <port>', 'the port the API listens on (HTTPS)', String(UP_DEFAULTS.securePort))
      .option('--port <port>', 'the same as --secure-port')
      .option('--service-cluster-ip-range <cidrs>', 'the Service CIDR (two, comma-separated, for dual-stack); at least a /29', UP_DEFAULTS.serviceClusterIPRange)
      .option('--service-node-port-range <range>', 'the NodePort range', UP_DEFAULTS.serviceNodePortRange)
      .option('--advertise-address <ip>', "the address in the kubernetes Service's endpoints (default: this host's first non-loopback IPv4 address)")
      .addOption(new Option('--endpoint-reconciler-type <type>', "how the kubernetes Service's endpoints are kept").choices(['lease', 'master-count', 'none']).default(UP_DEFAULTS.endpointReconcilerType))
      .option('--kubernetes-service-node-port <port>', 'make the kubernetes Service a NodePort on this port (0: ClusterIP)', String(UP_DEFAULTS.kubernetesServiceNodePort))
      .option('--dns-port <port>', 'the cluster DNS port on 127.0.0.1 (0 picks a free one)', String(UP_DEFAULTS.dnsPort))
      .addOption(new Option('--proxy-mode <mode>', "kube-proxy's mode (nftables: v1.33's rules)").choices(['iptables', 'nftables', 'userspace', 'none']).default(UP_DEFAULTS.proxyMode))
      .addOption(new Option('--dataplane <where>', 'where the iptables or nftables rules go: files in the data dir, or a real kernel in network namespaces (root)').choices(['none', 'netns']).default('none'))
      .option('--node-name <name>', 'the simulated node; with --nodes N > 1 the nodes are <name>-1 .. <name>-N', defaultNodeName())
      .option('--nodes <n>', `how many simulated nodes the kubelet runs (1 to ${MAX_NODES}); the node agent (DNS, kube-proxy) runs for the first, and in iptables or nftables mode a kube-proxy for each other, on its own watch of the API`, '1')
      .option('--node-zones <zones>', 'zones, comma-separated: node i gets the label topology.kubernetes.io/zone=zones[i mod k]; no more zones than nodes')
      .option('--node-region <region>', 'the label topology.kubernetes.io/region of every node')
      .option('--node-cpu <quantity>', "every node's capacity and allocatable cpu (the EndpointSlice controller's topology hints read it)", UP_DEFAULTS.nodeCPU)
      .option('--node-workers <n>', 'worker threads that run the kube-proxies of nodes 2..N, each still on its own watch (default: one per core, at least 2, at most one per node; 0 runs them on the main thread)')
      .option('--tables-files-interval <duration>', "how often each node's whole-table files are written again (iptables: rules.txt and rules.save.txt; nftables: ruleset.nft), such as 30s; the last sync's text is written at every sync (kubesvc only; default 0: at every sync)")
      .option('--cluster-cidr <cidr>', 'the pod CIDR: the one node has all of it; with --nodes N > 1 node i has its i-th /24 (/64 for IPv6)', UP_DEFAULTS.clusterCIDR)
      .option('--etcd-servers <urls>', 'keep the state in etcd at these client URLs (comma-separated) instead of SQLite in --data-dir; several kubesvc up processes can share one etcd')
      .option('--apiserver-count <n>', 'how many apiservers run, for --endpoint-reconciler-type=master-count', '1')
      .addOption(new Option('--controllers <bool>', 'run the controllers and the simulated kubelet in this process (false: another kubesvc up on the same etcd runs them)').choices(['true', 'false']).default('true'))
      .option('--repair-services-interval <duration>', 'how often the ClusterIP and NodePort repair loops run (kube-apiserver\'s flag, default 3m)')
      .option('--endpoint-reconcile-interval <duration>', "how often the kubernetes Service's endpoints are reconciled (kubesvc only; kube-apiserver: 10s)")
      .option('--master-lease-ttl <duration>', "the TTL of each apiserver's lease for the lease reconciler, whole seconds (kubesvc only; kube-apiserver: 15s)")
      .option('--max-endpoints-per-slice <n>', "kube-controller-manager's: the most endpoints the EndpointSlice controller puts in one slice (1 to 1000)", '100')
      .option('--mirroring-max-endpoints-per-subset <n>', "kube-controller-manager's: the most addresses of one Endpoints subset the mirroring controller copies into slices (1 to 1000)", '1000')
      .option('--etcd-compaction-interval <duration>', "how often the store's history is compacted, on SQLite as on etcd (kube-apiserver's flag, default 5m0s; 0 turns it off)")
      .option(
        '--feature-gates <pairs>',
        "kube-apiserver's: key=value pairs (a kube: prefix is allowed) for the gates that choose the ClusterIP allocator, MultiCIDRServiceAllocator and DisableAllocatorDualWrite, PreferSameTrafficDistribution (trafficDistribution PreferSameZone and PreferSameNode, and node hints in kube-proxy), and AllAlpha and AllBeta over them; other gates are refused; may be repeated",
        appendCommaSeparated,
      )
      .option(
        '--emulated-version <version>',
        `kube-apiserver's: the release whose feature gate defaults apply, ${MIN_KUBE_EMULATION_VERSION} to ${DEFAULT_KUBE_EMULATION_VERSION} (default ${DEFAULT_KUBE_EMULATION_VERSION})`,
        appendCommaSeparated,
      )
      .action(async (options: UpCommandOptions) => run(context, options));
  },
};
