// A Service's packets traced as sent on every Node of the source (`kubesvc trace --all-nodes`):
// one table per packet (each port's ClusterIP:port, and its node port from outside), a row per
// Node with its zone, a column per endpoint reached from any Node. A cell holds the probability
// of that endpoint from that Node (kube-proxy's 1/n, with the decimals it writes under it), or
// the row says why the Node drops or rejects the packet.
import { err } from '@kubesvc/api-types';
import { useEffect, useState } from 'preact/hooks';
import type { NodeMatrixAnswer, NodeMatrixOutcome, NodeMatrixRequest, NodeMatrixRow, ServiceDetail } from '../../src/explorer-model.js';
import { runMatrix } from '../api.js';

/** The packets of a Service worth a matrix: each port to each ClusterIP, and each node port. */
export function matrixPackets(service: ServiceDetail): NodeMatrixRequest[] {
  const packets: NodeMatrixRequest[] = [];
  const protocolOf = (p: string): NodeMatrixRequest['protocol'] | undefined => {
    const lower = p.toLowerCase();
    return lower === 'tcp' || lower === 'udp' || lower === 'sctp' ? lower : undefined;
  };
  const ips = service.clusterIPs.filter((ip) => ip !== '' && ip !== 'None');
  for (const port of service.ports) {
    const protocol = protocolOf(port.protocol);
    if (protocol === undefined) continue;
    for (const ip of ips) packets.push({ source: '', destination: `${ip.includes(':') ? `[${ip}]` : ip}:${port.port}`, protocol, nodePort: false });
    if (port.nodePort !== undefined) packets.push({ source: '', destination: `:${port.nodePort}`, protocol, nodePort: true });
  }
  return packets;
}

function label(request: NodeMatrixRequest): string {
  return request.nodePort ? `node port ${request.destination.slice(1)}/${request.protocol.toUpperCase()} from outside, on each node's address` : `${request.destination}/${request.protocol.toUpperCase()} from a pod`;
}

/** A drop, reject, accept or no-match: what it is and why. */
function verdict(o: NodeMatrixOutcome): string {
  if (o.outcome === 'no-match') return 'no rule matches: the packet goes on unchanged';
  return o.why === '' ? o.outcome : `${o.outcome}: ${o.why}`;
}

function Matrix({ request, answer, node }: { request: NodeMatrixRequest; answer: NodeMatrixAnswer; node: string }) {
  if (!answer.ok) return <p role="alert">{answer.error.message}</p>;
  const rows: readonly NodeMatrixRow[] = answer.value;
  const endpoints = [...new Set(rows.flatMap((r) => r.outcomes.filter((o) => o.outcome === 'dnat').map((o) => o.destination)))];
  const mixed = rows.some((r) => r.outcomes.some((o) => o.outcome !== 'dnat') && r.outcomes.some((o) => o.outcome === 'dnat'));
  return (
    <table data-testid="node-matrix" data-packet={request.destination} class="matrix">
      <caption>{label(request)}</caption>
      <thead>
        <tr>
          <th scope="col">NODE</th>
          <th scope="col">ZONE</th>
          {endpoints.map((e) => (
            <th scope="col" key={e}>
              {e}
            </th>
          ))}
          {(mixed || endpoints.length === 0) && <th scope="col">OTHER</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const others = r.outcomes.filter((o) => o.outcome !== 'dnat');
          const dnats = new Map(r.outcomes.filter((o) => o.outcome === 'dnat').map((o) => [o.destination, o]));
          return (
            <tr key={r.node} data-node={r.node} class={r.node === node ? 'current' : undefined} aria-current={r.node === node ? 'true' : undefined}>
              <th scope="row">{r.node}</th>
              <td>{r.zone || '—'}</td>
              {dnats.size === 0 && others.length > 0 ? (
                <td colSpan={endpoints.length + (mixed || endpoints.length === 0 ? 1 : 0)} class="verdict" data-verdict={others.map((o) => o.outcome).join(' ')}>
                  {others.map((o) => verdict(o)).join('; ')}
                </td>
              ) : (
                <>
                  {endpoints.map((e) => {
                    const o = dnats.get(e);
                    return o === undefined ? (
                      <td key={e} data-endpoint={e} class="unreached">
                        —
                      </td>
                    ) : (
                      <td key={e} data-endpoint={e} data-probability={o.probability} title={`as written: ${o.written}`}>
                        {o.probability}
                        <br />
                        <small>{o.decimal}</small>
                      </td>
                    );
                  })}
                  {(mixed || endpoints.length === 0) && <td class="verdict">{others.map((o) => verdict(o)).join('; ') || '—'}</td>}
                </>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The matrices of one Service; `node` is the picked Node, whose rows are marked. */
export function NodeMatrixView({ service, token, node }: { service: ServiceDetail; token: string; node: string }) {
  const packets = matrixPackets(service);
  const key = `${service.namespace}/${service.name} ${packets.map((p) => `${p.destination}/${p.protocol}`).join(' ')}`;
  const [answers, setAnswers] = useState<{ key: string; answers: NodeMatrixAnswer[] } | undefined>(undefined);
  useEffect(() => {
    let current = true;
    void Promise.all(
      packets.map((p) => runMatrix(token, p).catch((error: unknown): NodeMatrixAnswer => err({ _tag: 'ErrExplorerTrace', message: String(error) }))),
    ).then((all) => {
      if (current) setAnswers({ key, answers: all });
    });
    return () => {
      current = false;
    };
    // The packets follow from the key.
  }, [key, token]);
  return (
    <section aria-labelledby="matrix-title" data-testid="node-matrices">
      <h3 id="matrix-title">From each node</h3>
      <p class="hint">
        Where a packet to this Service goes when sent on each Node, as kube-proxy there writes its rules (its zone's topology hints, its
        local endpoints): <code>kubesvc trace --all-nodes</code>.
      </p>
      {packets.length === 0 && <p>No packet reaches this Service through kube-proxy (no ClusterIP).</p>}
      {answers?.key !== key ? (
        packets.length > 0 && <p>Tracing…</p>
      ) : (
        packets.map((p, i) => <Matrix key={`${p.destination}/${p.protocol}`} request={p} answer={answers.answers[i] ?? err({ _tag: 'ErrExplorerTrace', message: 'no answer' })} node={node} />)
      )}
    </section>
  );
}
