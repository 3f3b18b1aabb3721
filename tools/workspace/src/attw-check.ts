// `tsx tools/workspace/src/attw-check.ts <tarball>...` prints, as JSON, what
// `attw --pack <dir> --profile esm-only` decides for each packed tarball: core's analysis
// with the CLI's own pass/fail rule (its exit code). One process checks every tarball, so
// TypeScript (which attw runs) loads once. packaging.test.ts runs it; it is a separate
// process because vitest resolves attw's `development` export condition to TypeScript
// sources that Node cannot load.
import { readFileSync } from 'node:fs';
import { getExitCode } from '@arethetypeswrong/cli/internal/getExitCode';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';

/** The resolutions the CLI's `esm-only` profile ignores (@arethetypeswrong/cli, dist/profiles.js): CommonJS `require` and node10. */
export const ESM_ONLY_IGNORED_RESOLUTIONS = ['node10', 'node16-cjs'] as const;

export interface AttwVerdict {
  readonly typed: boolean;
  readonly exitCode: number;
  readonly problems: readonly unknown[];
}

const verdicts: Record<string, AttwVerdict> = {};
for (const tarball of process.argv.slice(2)) {
  const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
  verdicts[tarball] = {
    typed: analysis.types !== false,
    exitCode: getExitCode(analysis, { ignoreResolutions: [...ESM_ONLY_IGNORED_RESOLUTIONS] }),
    problems: analysis.types === false ? [] : analysis.problems,
  };
}
console.log(JSON.stringify(verdicts));
