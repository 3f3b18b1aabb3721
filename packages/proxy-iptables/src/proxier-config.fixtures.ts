// For tests and fixtures whose settings are known to be valid: the config, or a thrown error
// naming what is wrong (a fixture bug, not a case under test).
import { proxierConfig, type ProxierConfig, type ProxierConfigOptions } from './proxier-config.js';

export function validConfig(options: ProxierConfigOptions): ProxierConfig {
  const result = proxierConfig(options);
  if (!result.ok) throw new Error(`fixture config refused: ${result.error.message}`);
  return result.value;
}
