// @kubesvc/proxy-iptables/wasm: the WebAssembly kernel, opt-in. The main entry point never
// loads it; a caller that wants the fast paths makes a kernel here and passes it in the proxier
// config: `proxierConfig({ ..., kernel: loadKernel() })` (undefined where the runtime refuses
// WebAssembly, which leaves the pure-JavaScript paths). The texts are the same bytes either way.
export type { Constant, RuleKernel, SessionBytes, TextOut } from '../rule-kernel.js';
export { loadKernel } from './kernel.js';
