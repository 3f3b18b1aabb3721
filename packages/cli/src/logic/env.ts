// `kubesvc env`: the environment variables kubelet gives a pod's containers. Pure.
import type { Result } from '@kubesvc/api-types';
import { serviceEnv, type EnvVar, type ErrDiscoveryInput } from '@kubesvc/discovery';
import { formatTable } from '../output/output-format.js';
import type { Dump } from '../dump/load-dump.js';

export function envOf(dump: Dump, namespace: string, enableServiceLinks: boolean): Result<EnvVar[], ErrDiscoveryInput> {
  return serviceEnv({ namespace, enableServiceLinks }, dump.services);
}

/** As `env` prints them: NAME=value, one a line. */
export function formatEnvLines(vars: readonly EnvVar[]): string {
  return vars.map((v) => `${v.name}=${v.value}\n`).join('');
}

export function envTable(vars: readonly EnvVar[]): string {
  return formatTable(['NAME', 'VALUE'], vars.map((v) => [v.name, v.value]));
}

export function envData(namespace: string, vars: readonly EnvVar[]): Record<string, unknown> {
  return { namespace, env: vars.map((v) => ({ name: v.name, value: v.value })) };
}
