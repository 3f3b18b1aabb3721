// For tests and fixtures whose settings are known to be valid: the config, or a thrown error
// naming what is wrong (a fixture bug, not a case under test). The config carries the
// WebAssembly kernel, as the package's callers pass it (unless the options name a kernel), so
// that the tests exercise the kernel's paths; withoutKernel gives the pure-JavaScript paths'.
import { proxierConfig, type ProxierConfig, type ProxierConfigOptions } from './proxier-config.js';
import type { RuleKernel } from './rule-kernel.js';
import { loadKernel } from './wasm/kernel.js';

/** The kernel the fixtures' configs carry (undefined where this runtime refuses WebAssembly). */
export const TEST_KERNEL: RuleKernel | undefined = loadKernel();

export function validConfig(options: ProxierConfigOptions): ProxierConfig {
  const result = proxierConfig('kernel' in options || TEST_KERNEL === undefined ? options : { ...options, kernel: TEST_KERNEL });
  if (!result.ok) throw new Error(`fixture config refused: ${result.error.message}`);
  return result.value;
}

/** `config` without its kernel: every render takes the string paths. */
export function withoutKernel<C extends ProxierConfig>(config: C): C {
  const { kernel: _kernel, ...settings } = config;
  return settings as C;
}

/** `config` with `kernel`. */
export function withKernel<C extends ProxierConfig>(config: C, kernel: RuleKernel): C {
  return { ...config, kernel };
}
