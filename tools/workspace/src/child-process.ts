// Running a tool as a child process from a test, with its output in the error when it fails.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * The environment without npm's npm_* variables and without colour. `npm test` exports the
 * npm_* ones (npm_config_local_prefix among them), and a child npm would otherwise take the
 * workspace for its project; nx exports FORCE_COLOR, which would colour what a child prints.
 */
export const childEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'FORCE_COLOR')),
  NO_COLOR: '1',
};

/** Runs `file args` in `cwd`; rejects with the command, its stdout and its stderr when it exits non-zero. */
export async function runTool(file: string, args: readonly string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(file, [...args], { cwd, env: childEnv, maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} (in ${cwd}) failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}\n${err.message}`, { cause: e });
  }
}
