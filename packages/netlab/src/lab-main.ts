// `npm run lab`: builds a lab, loads the demo cluster's rules, sends real packets, prints what
// happened beside what the tracer predicts, and tears the lab down — also on Ctrl-C.
//
//   npm run lab -- [--proxy-mode iptables|nftables] [--iptables nft|legacy] [--topology auto|bridge|routed] [--connections N] [--hold] [--hold-seconds S]
//
// --hold keeps the lab after the demo (at most --hold-seconds, default 600) so that you can look
// inside with `ip netns exec`; Ctrl-C tears it down.
import { parseArgs } from 'node:util';
import { describeLab, runDemo } from './demo.js';
import { Lab, leftovers, processRunning, type IptablesBackend, type LabProxyMode, type Topology } from './lab.js';

const MAX_CONNECTIONS = 100_000;
const MAX_HOLD_SECONDS = 86_400;

function usage(problem: string): never {
  console.error(`${problem}\nusage: npm run lab -- [--proxy-mode iptables|nftables] [--iptables nft|legacy] [--topology auto|bridge|routed] [--connections N] [--hold] [--hold-seconds S]`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    'proxy-mode': { type: 'string', default: 'iptables' },
    iptables: { type: 'string', default: 'nft' },
    topology: { type: 'string', default: 'auto' },
    connections: { type: 'string', default: '3000' },
    hold: { type: 'boolean', default: false },
    'hold-seconds': { type: 'string', default: '600' },
  },
  allowPositionals: false,
});

const proxyMode = values['proxy-mode'];
if (proxyMode !== 'iptables' && proxyMode !== 'nftables') usage(`--proxy-mode must be iptables or nftables, not ${proxyMode}`);
const iptables = values.iptables;
if (iptables !== 'nft' && iptables !== 'legacy') usage(`--iptables must be nft or legacy, not ${iptables}`);
const topology = values.topology;
if (topology !== 'auto' && topology !== 'bridge' && topology !== 'routed') usage(`--topology must be auto, bridge or routed, not ${topology}`);
const connections = Number(values.connections);
if (!Number.isInteger(connections) || connections < 1 || connections > MAX_CONNECTIONS) usage(`--connections must be an integer in 1..${MAX_CONNECTIONS}`);
const holdSeconds = Number(values['hold-seconds']);
if (!Number.isInteger(holdSeconds) || holdSeconds < 1 || holdSeconds > MAX_HOLD_SECONDS) usage(`--hold-seconds must be an integer in 1..${MAX_HOLD_SECONDS}`);

let lab: Lab | undefined;

function reportTeardown(l: Lab, pids: readonly number[]): void {
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
  lab = await Lab.create({ backends: ['be0', 'be1', 'be2'], iptables: iptables as IptablesBackend, topology: topology as Topology | 'auto', proxyMode: proxyMode as LabProxyMode });
  describeLab(lab, (line) => console.log(line));
  const result = await runDemo(lab, { connections }, (line) => console.log(line));
  if (!result.ok) {
    status = 1;
    for (const p of result.problems) console.log(`PROBLEM: ${p}`);
  }
  if (values.hold) {
    console.log(`holding the lab for at most ${holdSeconds} s; look inside, e.g.:`);
    console.log(`  ip netns exec ${lab.nodeNamespace} iptables-${lab.iptables}-save -t nat`);
    console.log(`  ip netns exec ${lab.pod('client').namespace} ping -c 1 ${lab.pod('be0').ip}`);
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
