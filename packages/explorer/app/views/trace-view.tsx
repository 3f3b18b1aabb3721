// The packet trace: a form for one packet, the outcomes with their exact probabilities, and the
// chains of the outcomes highlighted on the rule graph.
import { err } from '@kubesvc/api-types';
import { useEffect, useState } from 'preact/hooks';
import type { ExplorerModel, ReplayResult, TraceAnswer, TraceRequest } from '../../src/explorer-model.js';
import { runTrace } from '../api.js';
import { ReplayPanel, realShare, sandboxAt } from './replay-panel.js';
import { RuleGraphView } from './rule-graph-view.js';
import { SandboxBadge } from './sandbox-badge.js';

const PROTOCOLS: readonly TraceRequest['protocol'][] = ['tcp', 'udp', 'sctp', 'icmp'];

/** The packet a link names (`#/trace?source=...&destination=...&protocol=...`), if it names one. */
function linkedRequest(params: URLSearchParams): TraceRequest | undefined {
  const destination = params.get('destination');
  if (destination === null) return undefined;
  const protocol = params.get('protocol') ?? 'tcp';
  return { source: params.get('source') ?? '10.244.0.2', destination, protocol: (PROTOCOLS as readonly string[]).includes(protocol) ? (protocol as TraceRequest['protocol']) : 'tcp' };
}

/** The address of this trace: open it and the same packet is traced again. */
export function traceLink(request: TraceRequest): string {
  return `#/trace?${new URLSearchParams({ source: request.source, destination: request.destination, protocol: request.protocol }).toString()}`;
}

export function TraceView({ model, token, node, params }: { model: ExplorerModel; token: string; node: string; params: URLSearchParams }) {
  const first = model.services.find((s) => s.clusterIPs[0] !== undefined && s.clusterIPs[0] !== 'None' && s.ports[0] !== undefined);
  const linked = linkedRequest(params);
  const [request, setRequest] = useState<TraceRequest>(
    linked ?? {
      source: '10.244.0.2',
      destination: first === undefined ? '' : `${first.clusterIPs[0] ?? ''}:${first.ports[0]?.port ?? ''}`,
      protocol: 'tcp',
    },
  );
  const [answer, setAnswer] = useState<TraceAnswer | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [traced, setTraced] = useState<TraceRequest | undefined>(undefined);
  const [replayed, setReplayed] = useState<ReplayResult | undefined>(undefined);
  const trace = (packet: TraceRequest): void => {
    setBusy(true);
    setTraced(packet);
    setReplayed(undefined);
    // The address becomes this trace's link (replaced, so Back leaves the trace page).
    history.replaceState(null, '', traceLink(packet));
    runTrace(token, { ...packet, ...(node !== '' ? { node } : {}) })
      .then(setAnswer, (error: unknown) => setAnswer(err({ _tag: 'ErrExplorerTrace', message: String(error) })))
      .finally(() => setBusy(false));
  };
  // A link that names a packet traces it as soon as the page opens.
  useEffect(() => {
    if (linked !== undefined) trace(linked);
  }, []);
  const set = (field: keyof TraceRequest) => (e: Event) => setRequest({ ...request, [field]: (e.target as HTMLInputElement).value });
  const path = answer?.ok === true ? [...new Set(answer.value.flatMap((o) => o.chains))] : [];
  const chainsOfAll = answer?.ok === true ? answer.value.map((o) => o.chains) : [];
  return (
    <section aria-labelledby="trace-title">
      <h2 id="trace-title">Packet trace</h2>
      {node !== '' && <p class="hint">Sent on node {node}: its kube-proxy's rules, its node IPs.</p>}
      <form
        data-testid="trace-form"
        onSubmit={(e) => {
          e.preventDefault();
          trace(request);
        }}
      >
        <label>
          Source IP <input name="source" value={request.source} onInput={set('source')} required />
        </label>
        <label>
          Destination (IP:port, or IP for ICMP) <input name="destination" value={request.destination} onInput={set('destination')} required />
        </label>
        <label>
          Protocol{' '}
          <select name="protocol" value={request.protocol} onChange={set('protocol')}>
            <option value="tcp">TCP</option>
            <option value="udp">UDP</option>
            <option value="sctp">SCTP</option>
            <option value="icmp">ICMP (ping)</option>
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Trace
        </button>
      </form>
      {answer !== undefined && traced !== undefined && (
        <p>
          <a href={traceLink(traced)} data-testid="trace-link">
            Link to this trace
          </a>{' '}
          (the page's address; share it with the link the server printed, or add <code>&amp;token=…</code>)
        </p>
      )}
      {answer?.ok === true && traced !== undefined && traced.protocol === 'tcp' && <ReplayPanel model={model} token={token} destination={traced.destination} onResult={setReplayed} />}
      <div aria-live="polite" data-testid="trace-result">
        {answer?.ok === false && <p role="alert">{answer.error.message}</p>}
        {answer?.ok === true && (
          <table data-testid="trace-outcomes">
            <thead>
              <tr>
                <th scope="col">OUTCOME</th>
                <th scope="col">DESTINATION</th>
                <th scope="col">PROBABILITY</th>
                {replayed !== undefined && <th scope="col">REAL</th>}
                <th scope="col">AS WRITTEN</th>
                <th scope="col">DECIMAL</th>
                <th scope="col">KERNEL</th>
                <th scope="col">MASQUERADED</th>
                <th scope="col">CHAINS</th>
              </tr>
            </thead>
            <tbody>
              {answer.value.map((o, i) => (
                <tr key={i}>
                  <td>{o.outcome === 'no-match' ? 'no rule matches: the packet goes on unchanged' : o.outcome.toUpperCase()}</td>
                  <td>
                    {o.destination}
                    {o.outcome === 'dnat' && sandboxAt(model, o.destination) !== undefined && (
                      <>
                        {' '}
                        {sandboxAt(model, o.destination)}
                        <SandboxBadge />
                      </>
                    )}
                  </td>
                  <td>{o.probability}</td>
                  {replayed !== undefined && <td data-testid="real-share">{realShare(model, replayed, o)}</td>}
                  <td>{o.written}</td>
                  <td>{o.decimal}</td>
                  <td>{o.kernel}</td>
                  <td>{o.masqueraded ? 'yes' : 'no'}</td>
                  <td>{o.chains.join(' > ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {path.length > 0 && (
        <>
          <h3>The path on the rule graph</h3>
          <TracedGraph model={model} chains={chainsOfAll} />
        </>
      )}
    </section>
  );
}

function TracedGraph({ model, chains }: { model: ExplorerModel; chains: readonly (readonly string[])[] }) {
  const ids = new Set(chains.flat());
  const nodes = model.rules.nodes.filter((n) => ids.has(n.id));
  const service = nodes.find((n) => n.service !== undefined)?.service ?? '';
  // Every step of every outcome's path, as consecutive pairs, lights its edge.
  const highlight = chains.flatMap((c) => [...c, '']);
  return <RuleGraphView model={model} service={service} highlight={highlight} embedded />;
}
