// "Replay from pod …": real requests sent from a pod that is a network namespace to the traced
// destination (`kubesvc up --dataplane netns` only; the page shows the control when the model
// lists such pods), counted by the pod that answers; the outcomes' table then shows each
// DNAT's share of the real answers next to its probability.
import { useState } from 'preact/hooks';
import type { ExplorerModel, ReplayAnswer, ReplayResult, TraceOutcomeView } from '../../src/explorer-model.js';
import { runReplay } from '../api.js';

/** The share of the real answers the outcome's endpoint gave (`k/N`), or '—' when it is not a pod that is a namespace. */
export function realShare(model: ExplorerModel, result: ReplayResult, outcome: TraceOutcomeView): string {
  const pod = outcome.outcome === 'dnat' ? sandboxAt(model, outcome.destination) : undefined;
  if (pod === undefined) return '—';
  return `${String(result.answers.find((a) => a.pod === pod)?.count ?? 0)}/${String(result.count)}`;
}

/** The pod whose address is the outcome's endpoint, when it is a namespace. */
export function sandboxAt(model: ExplorerModel, destination: string): string | undefined {
  const ip = destination.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^([^:\]]+):\d+$/, '$1');
  return (model.sandboxes ?? []).find((p) => p.ip === ip)?.name;
}

export function ReplayPanel({ model, token, destination, onResult }: { model: ExplorerModel; token: string; destination: string; onResult: (result: ReplayResult | undefined) => void }) {
  const pods = model.sandboxes ?? [];
  const [from, setFrom] = useState(pods[0] === undefined ? '' : `${pods[0].namespace}/${pods[0].name}`);
  const [count, setCount] = useState('20');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ReplayAnswer | undefined>(undefined);
  if (pods.length === 0) return null;
  const replay = (): void => {
    setBusy(true);
    onResult(undefined);
    runReplay(token, { from, destination, protocol: 'tcp', count: Number(count) })
      .then(
        (a) => {
          setAnswer(a);
          onResult(a.ok ? a.value : undefined);
        },
        (error: unknown) => setAnswer({ ok: false, error: { _tag: 'ErrExplorerReplay', message: String(error) } }),
      )
      .finally(() => setBusy(false));
  };
  return (
    <form
      data-testid="replay-form"
      onSubmit={(e) => {
        e.preventDefault();
        replay();
      }}
    >
      <label>
        Replay from pod{' '}
        <select name="from" value={from} onChange={(e) => setFrom((e.target as HTMLSelectElement).value)}>
          {pods.map((p) => (
            <option key={`${p.namespace}/${p.name}`} value={`${p.namespace}/${p.name}`}>
              {p.namespace}/{p.name} ({p.ip})
            </option>
          ))}
        </select>
      </label>
      <label>
        Requests <input name="count" type="number" min="1" max="200" value={count} onInput={(e) => setCount((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={busy || destination === ''}>
        Replay (HTTP GET /hostname to {destination || '…'})
      </button>
      <div aria-live="polite" data-testid="replay-result">
        {busy && <p>Sending…</p>}
        {answer?.ok === false && <p role="alert">{answer.error.message}</p>}
        {answer?.ok === true && (
          <p>
            {answer.value.count} real requests from {answer.value.from}:{' '}
            {answer.value.answers.map((a) => `${a.pod} ${String(a.count)}`).join(', ') || 'no answers'}
            {answer.value.failures > 0 && `; ${String(answer.value.failures)} failed (${answer.value.failureReasons.join('; ')})`}
          </p>
        )}
      </div>
    </form>
  );
}
