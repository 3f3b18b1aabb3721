// What the proxy-iptables suite's syncs share with the fresh-process measurement
// (proxy-iptables-fresh-entry.ts): the proxier config of kube-proxy's benchmark shape, the
// hand-off of a sync's text, and the first sync itself, so that both time the same work on the
// same inputs. Kept apart from the suite so that the fresh process loads only this.
import { proxierConfig, sync, type ProxierConfig, type SyncResult } from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import type { Cluster } from './proxy-shapes.js';

const CHECKED_CONFIG = proxierConfig({
  kernel: loadKernel(),
  nodeName: 'test-hostname',
  nodeIPs: ['192.168.0.2'],
  masqueradeMark: '0x4000',
  localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' },
  nodePortAddresses: [],
  localhostNodePorts: false,
});
if (!CHECKED_CONFIG.ok) throw new Error(CHECKED_CONFIG.error.message);
/** The config of kube-proxy's benchmark (see the suite's file comment), with the WebAssembly kernel. */
export const CONFIG: ProxierConfig = CHECKED_CONFIG.value;

/**
 * What a sync hands iptables-restore: its pieces of bytes (SyncResult.restoreChunks), as the
 * node agent writes them. With the task's buffer, kept between its syncs as kube-proxy keeps its
 * bytes.Buffer, the one piece is the text written into it; a first sync takes no buffer (the
 * node agent's first sync has none to reuse), and its pieces are views of the bytes its state
 * keeps, nothing copied. Either way the text is bytes already: nothing to flatten.
 */
export function handOffSync(result: SyncResult): void {
  const chunks = result.restoreChunks;
  let bytes = 0;
  for (const chunk of chunks) bytes += chunk.length;
  if (chunks[0]?.[0] !== 0x2a || bytes !== result.stats.bytes) throw new Error('not a restore text');
}

/** The suite's `first sync, feed included` task's call: no state, the objects converted in the sync, the text handed off. */
export function firstSync(input: Cluster): SyncResult {
  const result = sync(undefined, input.services, input.slices, CONFIG);
  handOffSync(result);
  return result;
}
