// The one place where subcommands are registered, in the order `kubesvc --help` lists them.
// A new subcommand is a module in this folder exporting a CliCommand, added here.
import type { CliCommand } from './command.js';
import { dnsCommand } from './dns.js';
import { doctorCommand } from './doctor.js';
import { envCommand } from './env.js';
import { exploreCommand } from './explore.js';
import { ipsCommand } from './ips.js';
import { downCommand, statusCommand, versionCommand } from './lifecycle.js';
import { proxyPortsCommand } from './proxy-ports.js';
import { rulesCommand } from './rules.js';
import { traceCommand } from './trace.js';
import { upCommand } from './up.js';
import { validateCommand } from './validate.js';

export const COMMANDS: readonly CliCommand[] = [upCommand, statusCommand, downCommand, proxyPortsCommand, rulesCommand, traceCommand, dnsCommand, envCommand, validateCommand, ipsCommand, doctorCommand, exploreCommand, versionCommand];
