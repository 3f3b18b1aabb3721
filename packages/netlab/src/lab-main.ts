// `npm run lab`: builds a lab, loads the demo cluster's rules, sends real packets, prints what
// happened beside what the tracer predicts, and tears the lab down — also on Ctrl-C.
//
//   npm run lab -- [--nodes 1|2] [--proxy-mode iptables|nftables] [--iptables nft|legacy] [--topology auto|bridge|routed] [--connections N] [--hold] [--hold-seconds S]
//
// --nodes 2 builds two nodes in two zones instead, each with its own kube-proxy rules, and asks
// what differs between them (an externalTrafficPolicy: Local NodePort, zone hints).
//
// --hold keeps the lab after the demo (at most --hold-seconds, default 600) so that you can look
// inside with `ip netns exec`; Ctrl-C tears it down.
import { parseArgs } from 'node:util';
import { describeLab, runDemo } from './demo.js';
import { leftovers, processRunning } from './netns.js';
import { MultiNodeLab } from './multi-node.js';
import { describeNodesLab, runNodesDemo, TWO_NODES } from './nodes-demo.js';
import { Lab, type IptablesBackend, type LabProxyMode, type Topology } from './lab.js';

const MAX_CONNECTIONS = 100_000;
const MAX_HOLD_SECONDS = 86_400;

function usage(problem: string): never {
  console.error(`${problem}\nusage: npm run lab -- [--nodes 1|2] [--proxy-mode iptables|nftables] [--iptables nft|legacy] [--topology auto|bridge|routed] [--connections N] [--hold] [--hold-seconds S]`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1' },
    'proxy-mode': { type: 'string', default: 'iptables' },
    iptables: { type: 'string', default: 'nft' },
    topology: { type: 'string', default: 'auto' },
    connections: { type: 'string', default: '3000' },
    hold: { type: 'boolean', default: false },
    'hold-seconds': { type: 'string', default: '600' },
  },
  allowPositionals: false,
});

const nodes = values.nodes;
if (nodes !== '1' && nodes !== '2') usage(`--nodes must be 1 or 2, not ${nodes}`);
const proxyMode = values['proxy-mode'];
if (proxyMode !== 'iptables' && proxyMode !== 'nftables') usage(`--proxy-mode must be iptables or nftables, not ${proxyMode}`);
const iptables = values.iptables;
if (iptables !== 'nft' && iptables !== 'legacy') usage(`--iptables must be nft or legacy, not ${iptables}`);
const topology = values.topology;
if (topology !== 'auto' && topology !== 'bridge' && topology !== 'routed') usage(`--topology must be auto, bridge or routed, not ${topology}`);
if (nodes === '2' && topology !== 'auto' && topology !== 'bridge') usage('--nodes 2 puts each node\'s pods on a bridge: --topology routed is for one node');
const connections = Number(values.connections);
if (!Number.isInteger(connections) || connections < 1 || connections > MAX_CONNECTIONS) usage(`--connections must be an integer in 1..${MAX_CONNECTIONS}`);
const holdSeconds = Number(values['hold-seconds']);
if (!Number.isInteger(holdSeconds) || holdSeconds < 1 || holdSeconds > MAX_HOLD_SECONDS) usage(`--hold-seconds must be an integer in 1..${MAX_HOLD_SECONDS}`);

let lab: Lab | MultiNodeLab | undefined;

function reportTeardown(l: Lab | MultiNodeLab, pids: readonly number[]): void {
  const left = leftovers(l.prefix);
  const alive = pids.filter(processRunning);
  const clean = left.namespaces.length === 0 && left.links.length === 0 && alive.length === 0;
  console.log(
    clean
      ? `torn down: no namespace, link or process of ${l.prefix} is left`
      : `teardown left namespaces [${left.namespaces.join(' ')}], links [${left.links.join(' ')}], processes [${alive.join(' ')}]`,
  );
}

// Ctrl-C (and kill): the lab's own handler has already killed its processes and deleted its
// namespaces synchronously; this one reports and exits as a signalled process would.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.log(`\n${signal}: tearing the lab down`);
    if (lab !== undefined) {
      const pids = lab.pids;
      lab.teardownNow();
      reportTeardown(lab, pids);
    }
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

let status = 0;
try {
  const demo =
    nodes === '2'
      ? await (async () => {
          const multi = await MultiNodeLab.create({ nodes: TWO_NODES, iptables: iptables as IptablesBackend, proxyMode: proxyMode as LabProxyMode });
          lab = multi;
          describeNodesLab(multi, (line) => console.log(line));
          return runNodesDemo(multi, { connections }, (line) => console.log(line));
        })()
      : await (async () => {
          const single = await Lab.create({ backends: ['be0', 'be1', 'be2'], iptables: iptables as IptablesBackend, topology: topology as Topology | 'auto', proxyMode: proxyMode as LabProxyMode });
          lab = single;
          describeLab(single, (line) => console.log(line));
          return runDemo(single, { connections }, (line) => console.log(line));
        })();
  if (!demo.ok) {
    status = 1;
    for (const p of demo.problems) console.log(`PROBLEM: ${p}`);
  }
  if (values.hold) {
    console.log(`holding the lab for at most ${holdSeconds} s; look inside, e.g.:`);
    if (lab instanceof Lab) {
      console.log(`  ip netns exec ${lab.nodeNamespace} iptables-${lab.iptables}-save -t nat`);
      console.log(`  ip netns exec ${lab.pod('client').namespace} ping -c 1 ${lab.pod('be0').ip}`);
    } else if (lab !== undefined) {
      const node = lab.nodes[1] ?? lab.nodes[0];
      console.log(`  ip netns exec ${node?.namespace ?? ''} ${lab.proxyMode === 'nftables' ? 'nft list table ip kube-proxy' : `iptables-${lab.iptables}-save -t nat`}`);
      console.log(`  ip netns exec ${lab.pod('cb').namespace} ping -c 1 ${lab.pod('bea1').ip}`);
    }
    console.log('Ctrl-C tears it down.');
    await new Promise((resolve) => setTimeout(resolve, holdSeconds * 1000));
  }
} catch (error) {
  status = 1;
  console.error(error instanceof Error ? error.message : String(error));
} finally {
  if (lab !== undefined) {
    const pids = lab.pids;
    await lab.teardown();
    reportTeardown(lab, pids);
  }
}
process.exit(status);
