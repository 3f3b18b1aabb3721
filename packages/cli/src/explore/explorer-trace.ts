// The explorer's trace form, run through proxy-iptables' tracer over the rules kube-proxy
// writes for the same objects: the packet as `kubesvc trace` reads its flags. Pure.
import type { TraceAnswer, TraceRequest } from '@kubesvc/explorer';
import { formatRational, generateRules, rationalToFixed, tracePacket, type ProxierConfig } from '@kubesvc/proxy-iptables';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import type { Dump } from '../dump/load-dump.js';
import { packetOf } from '../logic/trace.js';

export function explorerTrace(dump: Dump, proxier: ProxierConfig, request: TraceRequest): TraceAnswer {
  const packet = packetOf({
    to: request.destination.trim(),
    proto: request.protocol,
    nodePort: false,
    nodeIPs: proxier.nodeIPs,
    ...(request.source.trim() !== '' ? { from: request.source.trim() } : {}),
  });
  if (!packet.ok) return { ok: false, message: packet.error.message.replace(/--to/g, 'destination').replace(/--from/g, 'source') };
  const { ruleset } = generateRules(dump.services, endpointSlicesForProxy(dump), proxier);
  const trace = tracePacket(ruleset, packet.value.packet, { localAddresses: packet.value.localAddresses, masqueradeMark: 1 << proxier.masqueradeBit });
  if (!trace.ok) return { ok: false, message: trace.error.message };
  const p = trace.value.packet;
  return {
    ok: true,
    outcomes: trace.value.outcomes.map((o) => ({
      outcome: o.kind,
      destination: o.dnat ?? (p.destinationPort === undefined ? p.destination : `${p.destination}:${p.destinationPort}`),
      probability: formatRational(o.probability.written),
      decimal: rationalToFixed(o.probability.written, 10),
      kernel: rationalToFixed(o.probability.kernel, 10),
      masqueraded: o.masqueraded,
      chains: [...new Set(o.chains)],
    })),
  };
}
