// `kubesvc proxy-ports [--data-dir DIR]`: the loopback ports a running `kubesvc up
// --proxy-mode userspace` opened, one per Service port, so that `curl 127.0.0.1:<port>`
// reaches the Service's endpoints. `kubesvc up` keeps the list in <data-dir>/proxy-ports.json.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ProxyPort } from '@kubesvc/node-agent';
import { ErrNotFound, inputError } from '../cli-error.js';
import { formatData } from '../output/output-format.js';
import { outputFormat } from '../output/printer.js';
import type { CliCommand, CommandContext } from './command.js';
import { PROXY_PORTS_FILE, UP_DEFAULTS } from '../up/up-defaults.js';

interface ProxyPortsOptions {
  readonly dataDir: string;
  readonly output: string;
}

export function proxyPortsTable(ports: readonly ProxyPort[]): string {
  const rows = [['SERVICE PORT', 'PROTOCOL', 'CLUSTER-IP:PORT', 'LISTENS ON', 'ENDPOINTS'], ...ports.map((p) => [p.servicePort, p.protocol, `${p.clusterIP}:${p.port}`, `${p.host}:${p.listenPort}`, p.endpoints.length === 0 ? '<none>' : p.endpoints.join(',')])];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return `${rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3))).join('')).join('\n')}\n`;
}

async function run(context: CommandContext, options: ProxyPortsOptions): Promise<void> {
  const output = outputFormat(options.output, ['table', 'json', 'yaml'] as const);
  const path = join(options.dataDir, PROXY_PORTS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new ErrNotFound(`${path} does not exist: is \`kubesvc up --proxy-mode userspace --data-dir ${options.dataDir}\` running?`);
  }
  let ports: ProxyPort[];
  try {
    ports = JSON.parse(text) as ProxyPort[];
  } catch (error) {
    throw inputError(`${path}: not the JSON kubesvc up writes: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(ports)) throw inputError(`${path}: not the JSON kubesvc up writes: expected a list`);
  context.io.out(output === 'table' ? proxyPortsTable(ports) : formatData(output, { proxyPorts: ports }));
}

export const proxyPortsCommand: CliCommand = {
  name: 'proxy-ports',
  register(program: Command, context: CommandContext): void {
    program
      .command('proxy-ports')
      .summary("the userspace proxy's loopback port for each Service port of a running kubesvc up")
      .option('--data-dir <dir>', 'the data dir of the running kubesvc up', UP_DEFAULTS.dataDir)
      .option('-o, --output <format>', 'output format: table, json or yaml', 'table')
      .action(async (options: ProxyPortsOptions) => run(context, options));
  },
};
