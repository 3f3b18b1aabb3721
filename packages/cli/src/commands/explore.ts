// `kubesvc explore -f dump.yaml`: the explorer page over a dump, read-only, served on
// 127.0.0.1 with a fresh bearer token that the printed link carries in its fragment.
import { randomBytes } from 'node:crypto';
import { type Command } from 'commander';
import { createExplorerHandler, ensureUiBuilt, startExplorerServer } from '@kubesvc/explorer/node';
import { inputError, usageError } from '../cli-error.js';
import type { CliCommand, CommandContext } from './command.js';
import { addProxierOptions, checkModeFlags, proxierConfigOf, type ProxierCommandOptions } from './proxier-options.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, serviceNetworkingOf } from './service-range-option.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface ExploreCommandOptions extends ProxierCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly serviceClusterIpRange: string;
  readonly port: string;
}

/** The port the page is served on unless --port says otherwise. */
export const EXPLORE_DEFAULT_PORT = 8089;

async function run(context: CommandContext, options: ExploreCommandOptions): Promise<void> {
  const { io } = context;
  const port = /^\d+$/.test(options.port) ? Number(options.port) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) throw usageError(`--port ${JSON.stringify(options.port)}: a number from 0 to 65535 (0 picks a free port)`);
  const serviceNetworking = serviceNetworkingOf(options.serviceClusterIpRange);
  checkModeFlags(options, false);
  // The page draws the iptables mode's rules and traces; an nftables view is not built yet, and
  // drawing iptables rules for a node that runs nftables would be a wrong answer.
  if (options.proxyMode === 'nftables') throw usageError('the explorer draws the iptables mode only: use kubesvc rules or trace --proxy-mode nftables for the nftables rules');
  const proxier = proxierConfigOf(options);
  const dump = await readDump(io, options);
  if (!(await ensureUiBuilt())) throw inputError('the explorer page is not built: this copy of @kubesvc/explorer has no ui/ folder');
  // Loaded here, not at the top: the model's Table printer is the runtime's, which the other
  // offline commands must not load (offline-modules.e2e.test.ts).
  const { dumpExplorerSource } = await import('../explore/explorer-sources.js');
  const source = dumpExplorerSource(dump, { proxier, proxierOf: (node) => proxierConfigOf(options, node), serviceNetworking, now: () => Date.now() });
  const token = randomBytes(32).toString('base64url');
  let server;
  try {
    server = await startExplorerServer({ handler: createExplorerHandler({ source }), token, host: '127.0.0.1', port });
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRINUSE') throw usageError(`127.0.0.1:${port} is already in use: pick another port with --port`);
    throw error;
  }
  io.out(`Explorer (read-only, ${dump.source}): ${server.pageURL}\nCtrl-C stops it.\n`);
  const started = server;
  await new Promise<void>((resolve) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void started.close().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export const exploreCommand: CliCommand = {
  name: 'explore',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('explore')
      .summary('open the explorer page over a dump (read-only)')
      .description(
        "Serves the explorer page for a dump on 127.0.0.1: the services table, each service's ports, endpoints, environment variables and DNS records, kube-proxy's nat chains as a graph, the ClusterIP allocation map, and packet traces. Read-only; the printed link carries the access token.",
      );
    addFilenameOption(command);
    addProxierOptions(command)
      .option('--service-cluster-ip-range <cidrs>', "the cluster's service CIDRs, primary first", DEFAULT_SERVICE_CLUSTER_IP_RANGE)
      .option('--port <port>', 'the port on 127.0.0.1 (0 picks a free one)', String(EXPLORE_DEFAULT_PORT))
      .action(async (options: ExploreCommandOptions) => run(context, options));
  },
};
