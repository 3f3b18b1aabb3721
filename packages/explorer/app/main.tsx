// The explorer page: a header with the views (and, when the source has Nodes, a picker of the
// Node whose kube-proxy the rules and traces are drawn as), and the view the address names
// (#/services, #/service/NS/NAME, #/rules, #/allocation, #/trace).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ExplorerModel } from '../src/explorer-model.js';
import { followModel, readToken } from './api.js';
import { AllocationView } from './views/allocation-view.js';
import { RuleGraphView } from './views/rule-graph-view.js';
import { ServicePage } from './views/service-page.js';
import { ServicesView } from './views/services-view.js';
import { TraceView } from './views/trace-view.js';
import './styles.css';

const token = readToken();

function useRoute(): string {
  const [route, setRoute] = useState(location.hash.replace(/^#/, '') || '/services');
  useEffect(() => {
    const on = (): void => setRoute(location.hash.replace(/^#/, '') || '/services');
    addEventListener('hashchange', on);
    // A change between the first render and this effect (which runs after paint) is caught here.
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

const VIEWS = [
  ['/services', 'Services'],
  ['/rules', 'Rule graph'],
  ['/allocation', 'Allocation map'],
  ['/trace', 'Packet trace'],
] as const;

/** The source's Nodes to draw as; '' is "(no node)": the server's flags, as without a picker. */
function NodePicker({ model, node, onPick }: { model: ExplorerModel; node: string; onPick: (node: string) => void }) {
  const nodes = model.nodes ?? [];
  if (nodes.length === 0) return null;
  return (
    <label class="node-picker">
      As node{' '}
      <select name="node" data-testid="node-picker" value={node} onChange={(e) => onPick((e.target as HTMLSelectElement).value)}>
        <option value="">(no node)</option>
        {nodes.map((n) => (
          <option key={n.name} value={n.name}>
            {n.zone === '' ? n.name : `${n.name} (${n.zone})`}
          </option>
        ))}
      </select>
    </label>
  );
}

function App() {
  const [model, setModel] = useState<ExplorerModel | undefined>(undefined);
  const [status, setStatus] = useState('connecting');
  const [node, setNode] = useState('');
  const route = useRoute();
  useEffect(() => followModel(token, node, setModel, setStatus), [node]);
  const [path = '', query = ''] = route.split('?');
  const params = new URLSearchParams(query);

  let view = <p>Loading…</p>;
  if (model !== undefined) {
    if (path.startsWith('/service/')) {
      const [namespace = '', name = ''] = path.slice('/service/'.length).split('/').map(decodeURIComponent);
      view = <ServicePage model={model} namespace={namespace} name={name} token={token} node={node} />;
    } else if (path === '/rules') view = <RuleGraphView model={model} service={params.get('service') ?? ''} highlight={[]} />;
    else if (path === '/allocation') view = <AllocationView model={model} />;
    else if (path === '/trace') view = <TraceView model={model} token={token} node={node} params={params} />;
    else view = <ServicesView model={model} />;
  }
  const current = path.startsWith('/service/') ? '/services' : path;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header>
        <h1>kubesvc explorer</h1>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map(([href, label]) => (
              <li key={href}>
                <a href={`#${href}`} aria-current={current === href ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {model !== undefined && <NodePicker model={model} node={node} onPick={setNode} />}
        <p class="status" role="status" data-testid="status">
          {model === undefined
            ? status
            : `${model.mode === 'dump' ? 'read-only dump' : 'live'}: ${model.source}${model.node === undefined ? '' : ` · as node ${model.node}`} · ${status}`}
        </p>
      </header>
      <main id="main" tabIndex={-1}>
        {view}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
