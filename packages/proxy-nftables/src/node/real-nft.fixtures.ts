// Test-only: the real nft in a throwaway network namespace (in src/node/, where a pure
// package may use Node; a fixture, so the build leaves it out). Each call makes one
// namespace (`unshare -n`, gone when its shell exits), writes the given scripts to a temporary folder
// (removed afterwards, on failure too), and runs them in order with `nft -f`, recording each
// one's exit status and standard error, then lists the ruleset (`nft list ruleset`, and
// `nft -j list ruleset` for JSON). A `reset` step flushes
// the ruleset between independent scripts, so that one namespace serves many of them.
//
// Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN), nftables and util-linux's unshare. When
// they are missing the tests FAIL, saying what to install; .ci/run installs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SEARCH_PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
/**
 * Below vitest's test timeout (120 s), so that a run cut off says so here. A hundred scripts
 * take a few seconds on an idle machine and about half a minute at a load of 12; callers keep
 * their runs to that size.
 */
const SPAWN_TIMEOUT_MS = 110_000;

export interface NftStep {
  /** The nft script (`nft -f` input). */
  readonly script: string;
  /** Flush the whole ruleset before this script. */
  readonly reset?: boolean;
  /** List the ruleset as JSON after this script (`json` of its result). */
  readonly list?: boolean;
}

export interface NftStepResult {
  readonly status: number;
  readonly stderr: string;
  /** `nft -j list ruleset` after the step, when it asked for it. */
  readonly json?: string;
}

export interface NftRun {
  readonly steps: readonly NftStepResult[];
  /** `nft list ruleset` after the last step. */
  readonly listing: string;
  /** `nft -j list ruleset` after the last step. */
  readonly json: string;
}

function sh(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, PATH: SEARCH_PATH } });
  return { status: r.status, stdout: r.stdout, stderr: `${r.error === undefined ? '' : `${r.error.message}\n`}${r.stderr}` };
}

/** Why the real nft cannot run here, or undefined when it can. Probed once. */
export const nftMissing: string | undefined = (() => {
  const absent = ['nft', 'unshare'].filter((t) => sh(`command -v ${t}`).status !== 0);
  if (absent.length > 0) {
    return `the real-kernel check needs ${absent.join(', ')}, which are not installed. Install them (Debian/Ubuntu: apt-get install -y nftables util-linux); .ci/run installs them.`;
  }
  const probe = sh('unshare -n nft list ruleset');
  if (probe.status !== 0) {
    return (
      `\`unshare -n nft list ruleset\` failed (exit ${String(probe.status)}): ${probe.stderr.trim()}. ` +
      'The real-kernel check needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN) to make a network namespace; CI runs as root.'
    );
  }
  return undefined;
})();

export function requireRealNft(): void {
  if (nftMissing !== undefined) throw new Error(`REAL NFT CHECK CANNOT RUN: ${nftMissing}`);
}

/** The steps run in order in one fresh network namespace. */
export function runNft(steps: readonly NftStep[]): NftRun {
  requireRealNft();
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-nft-'));
  try {
    const lines: string[] = [];
    steps.forEach((step, i) => {
      writeFileSync(join(dir, `${i}.nft`), step.script);
      if (step.reset === true) lines.push('nft flush ruleset');
      lines.push(`nft -f ${i}.nft 2>${i}.err; echo $? >${i}.rc`);
      if (step.list === true) lines.push(`nft -j list ruleset >${i}.json 2>>${i}.err`);
    });
    lines.push('nft list ruleset >listing.txt 2>listing.err', 'nft -j list ruleset >listing.json 2>>listing.err');
    writeFileSync(join(dir, 'run.sh'), `${lines.join('\n')}\n`);
    const r = sh(`cd '${dir}' && unshare -n sh run.sh`);
    if (r.status === null) throw new Error(`unshare -n sh run.sh (${steps.length} nft scripts) did not finish within ${SPAWN_TIMEOUT_MS / 1000} s: ${r.stderr}`);
    if (r.status !== 0) throw new Error(`unshare -n sh run.sh exited ${String(r.status)}: ${r.stderr}`);
    const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
    return {
      steps: steps.map((step, i) => ({
        status: Number(read(`${i}.rc`).trim()),
        stderr: read(`${i}.err`),
        ...(step.list === true ? { json: read(`${i}.json`) } : {}),
      })),
      listing: read('listing.txt'),
      json: read('listing.json'),
    };
  } finally {
    // Retried: a process that was still writing when a run was cut off can race the removal.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
