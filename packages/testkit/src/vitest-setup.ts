// vitest setup file (see vitest.shared.ts): installs the property harness in every test file.
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { installPropertyHarness } from './property-harness.js';

const workspaceRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

installPropertyHarness(process.env, () => {
  const { testPath, currentTestName } = expect.getState();
  const packageDir = relative(workspaceRoot, process.cwd());
  return {
    packageDir,
    ...(testPath === undefined ? {} : { testFile: relative(process.cwd(), testPath) }),
    ...(currentTestName === undefined ? {} : { testName: currentTestName }),
  };
});
