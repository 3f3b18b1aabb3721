// The nat table's chains as a graph, for the whole node or one service: KUBE-SERVICES ->
// KUBE-SVC-... -> KUBE-SEP-... -> DNAT, with the NodePort, external, firewall and masquerade
// branches. Each edge is one rule: its match and probability on the drawing, its text on hover
// and in the panel of a focused chain. A trace's path is drawn highlighted.
import { useMemo, useState } from 'preact/hooks';
import type { ExplorerModel, RuleGraph } from '../../src/explorer-model.js';
import { layoutGraph, nodeLines } from '../layout-graph.js';

/** The part of the graph that belongs to one service: its chains, and the edges into and out of them. */
export function serviceSubgraph(graph: RuleGraph, service: string): RuleGraph {
  if (service === '') return graph;
  const own = new Set(graph.nodes.filter((n) => n.service === service).map((n) => n.id));
  const edges = graph.edges.filter((e) => own.has(e.from) || own.has(e.to));
  const ids = new Set(edges.flatMap((e) => [e.from, e.to]));
  for (const id of own) ids.add(id);
  return { nodes: graph.nodes.filter((n) => ids.has(n.id)), edges };
}

export interface RuleGraphViewProps {
  readonly model: ExplorerModel;
  readonly service: string;
  /** Chains a traced packet walked, in order. */
  readonly highlight: readonly string[];
  readonly embedded?: boolean;
}

export function RuleGraphView({ model, service, highlight, embedded }: RuleGraphViewProps) {
  const [selected, setSelected] = useState(service);
  const [focused, setFocused] = useState<string | undefined>(undefined);
  // Fit: the whole graph scaled into the box (never wider than its own size); actual size scrolls.
  const [fit, setFit] = useState(true);
  const chosen = embedded === true ? service : selected;
  const graph = useMemo(() => serviceSubgraph(model.rules, chosen), [model.rules, chosen]);
  const placed = useMemo(() => layoutGraph(graph), [graph]);
  const services = [...new Set(model.rules.nodes.flatMap((n) => (n.service === undefined ? [] : [n.service])))].sort();
  const lit = new Set(highlight);
  const litEdge = new Set<string>();
  for (let i = 0; i + 1 < highlight.length; i++) litEdge.add(`${highlight[i] ?? ''}\u0000${highlight[i + 1] ?? ''}`);
  const focusedNode = graph.nodes.find((n) => n.id === focused);
  return (
    <section aria-labelledby={embedded === true ? undefined : 'rules-title'}>
      {embedded !== true && (
        <>
          <h2 id="rules-title">Rule graph</h2>
          <label>
            Show{' '}
            <select
              data-testid="graph-service"
              value={selected}
              onChange={(e) => {
                const value = (e.target as HTMLSelectElement).value;
                setSelected(value);
                history.replaceState(null, '', value === '' ? '#/rules' : `#/rules?service=${encodeURIComponent(value)}`);
              }}
            >
              <option value="">the whole node</option>
              {services.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <p class="hint">Tab through the chains: the focused chain's rules are listed under the graph. Hover an edge for its rule.</p>
        </>
      )}
      {graph.nodes.length === 0 ? (
        <p>No rules for {chosen === '' ? 'this node' : chosen} (an ExternalName or headless Service has none).</p>
      ) : (
        <>
        <button type="button" class="zoom" data-testid="graph-zoom" aria-pressed={!fit} onClick={() => setFit(!fit)}>
          {fit ? 'Actual size' : 'Fit to width'}
        </button>
        <div class={fit ? 'graph-scroll fit' : 'graph-scroll'} data-testid="graph-box">
          <svg
            data-testid="rule-graph"
            role="group"
            aria-label={`iptables nat chains of ${chosen === '' ? 'the whole node' : chosen}`}
            width={fit ? '100%' : placed.width}
            height={fit ? undefined : placed.height}
            style={fit ? `max-width: ${placed.width}px; height: auto` : undefined}
            viewBox={`0 0 ${placed.width} ${placed.height}`}
          >
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
              </marker>
            </defs>
            {placed.edges.map((e) => {
              const on = litEdge.has(`${e.edge.from}\u0000${e.edge.to}`);
              return (
                <g key={e.edge.id} class={on ? 'edge lit' : 'edge'} data-testid="graph-edge" data-from={e.edge.from} data-to={e.edge.to}>
                  <title>{e.edge.rule}</title>
                  <polyline points={e.points.map((p) => `${p.x},${p.y}`).join(' ')} marker-end="url(#arrow)" />
                  {e.label.split('\n').map((line, i, all) => (
                    <text key={i} x={e.labelX} y={e.labelY + (i - (all.length - 1) / 2) * 13 + 4} text-anchor="middle" class="edge-label">
                      {line}
                    </text>
                  ))}
                </g>
              );
            })}
            {placed.nodes.map((p) => {
              const lines = nodeLines(p.node);
              const classes = ['node', p.node.kind, lit.has(p.node.id) ? 'lit' : '', p.node.id.startsWith('KUBE-SEP-') ? 'sep' : ''].filter((c) => c !== '').join(' ');
              return (
                <g
                  key={p.node.id}
                  class={classes}
                  tabIndex={0}
                  role="button"
                  aria-label={lines.join(', ')}
                  data-testid="graph-node"
                  data-chain={p.node.id}
                  data-probability={p.node.probability}
                  transform={`translate(${p.x - p.width / 2},${p.y - p.height / 2})`}
                  onFocus={() => setFocused(p.node.id)}
                  onMouseEnter={() => setFocused(p.node.id)}
                >
                  <title>{lines.join('\n')}</title>
                  <rect width={p.width} height={p.height} rx="6" />
                  {lines.map((line, i) => (
                    <text key={i} x={10} y={20 + i * 16} class={i === 0 ? 'node-title' : 'node-sub'}>
                      {line}
                    </text>
                  ))}
                </g>
              );
            })}
          </svg>
        </div>
        </>
      )}
      {focusedNode !== undefined && (
        <div class="panel" data-testid="chain-rules" aria-live="polite">
          <h3>{focusedNode.label}</h3>
          <pre>{graph.edges.filter((e) => e.from === focusedNode.id).map((e) => e.rule).join('\n') || '(no rules leave it)'}</pre>
        </div>
      )}
    </section>
  );
}
