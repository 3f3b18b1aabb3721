// Lays the rule graph out left to right with dagre: chains in columns by depth, edges routed
// around them, room left for each edge's label.
import { Graph, layout } from '@dagrejs/dagre';
import type { RuleGraph, RuleGraphEdge, RuleGraphNode } from '../src/explorer-model.js';

export interface PlacedNode {
  readonly node: RuleGraphNode;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedEdge {
  readonly edge: RuleGraphEdge;
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly label: string;
  readonly labelX: number;
  readonly labelY: number;
}

export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
}

const CHAR_WIDTH = 7.4;
const LINE_HEIGHT = 16;
/** One line of an edge label (10.5 px text). */
export const LABEL_LINE = 13;

/** What an edge says on the drawing: the match, shortened, and the probability. */
export function edgeLabel(edge: RuleGraphEdge): string {
  const match = edge.match.length > 48 ? `${edge.match.slice(0, 47)}…` : edge.match;
  const p = edge.probability === undefined ? '' : `p ${edge.probability.written} (kernel ${edge.probability.kernel})`;
  return [match, p].filter((s) => s !== '').join('\n');
}

export function nodeLines(node: RuleGraphNode): string[] {
  const lines = [node.label];
  if (node.service !== undefined && node.kind === 'chain') lines.push(node.service);
  if (node.probability !== undefined) lines.push(`p ${node.probability}`);
  return lines;
}

export function layoutGraph(graph: RuleGraph): GraphLayout {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 60, edgesep: 12, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) {
    const lines = nodeLines(node);
    g.setNode(node.id, { width: Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH + 20, height: lines.length * LINE_HEIGHT + 12 });
  }
  const labels = new Map<string, string>();
  for (const edge of graph.edges) {
    const label = edgeLabel(edge);
    labels.set(edge.id, label);
    const lines = label === '' ? [] : label.split('\n');
    g.setEdge(
      edge.from,
      edge.to,
      // Room for the label twice over: dagre routes other edges around it, this edge runs level
      // through its lower half (below), and the label sits in the upper half, above its edge.
      { width: lines.length === 0 ? 0 : Math.max(...lines.map((l) => l.length)) * 6.4 + 8, height: lines.length === 0 ? 0 : lines.length * LABEL_LINE * 2 + 6, labelpos: 'c' },
      edge.id,
    );
  }
  layout(g);
  const nodes: PlacedNode[] = graph.nodes.map((node) => {
    const n = g.node(node.id) as { x: number; y: number; width: number; height: number };
    return { node, x: n.x, y: n.y, width: n.width, height: n.height };
  });
  const edges: PlacedEdge[] = graph.edges.map((edge) => {
    const e = g.edge({ v: edge.from, w: edge.to, name: edge.id }) as { points?: { x: number; y: number }[]; x?: number; y?: number; width?: number };
    const label = labels.get(edge.id) ?? '';
    const raw = e.points ?? [];
    const mid = raw[Math.floor(raw.length / 2)] ?? { x: 0, y: 0 };
    if (label === '' || e.x === undefined || e.y === undefined) return { edge, points: raw, label, labelX: e.x ?? mid.x, labelY: e.y ?? mid.y };
    // The edge passes through the centre of its label's room: there it runs level across the
    // room's width, and the label is drawn above that run.
    const cx = e.x;
    const cy = e.y;
    const half = (e.width ?? 0) / 2;
    let at = 0;
    raw.forEach((p, i) => {
      const best = raw[at] ?? p;
      if (Math.hypot(p.x - cx, p.y - cy) < Math.hypot(best.x - cx, best.y - cy)) at = i;
    });
    const points = [...raw.slice(0, at), { x: cx - half, y: cy }, { x: cx + half, y: cy }, ...raw.slice(at + 1)];
    const lineCount = label.split('\n').length;
    return { edge, points, label, labelX: cx, labelY: cy - (lineCount * LABEL_LINE) / 2 - 3 };
  });
  const size = g.graph() as { width?: number; height?: number };
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, edges };
}
