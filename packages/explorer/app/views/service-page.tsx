// One service: its ports, its endpoints by state, the environment variables a pod gets for it,
// and its DNS records; links to its rule graph and a trace to it; with Nodes in the source,
// where its packets go from each Node.
import type { ExplorerModel } from '../../src/explorer-model.js';
import { NodeMatrixView } from './node-matrix-view.js';
import { SandboxBadge } from './sandbox-badge.js';

export function ServicePage({ model, namespace, name, token, node }: { model: ExplorerModel; namespace: string; name: string; token: string; node: string }) {
  const service = model.services.find((s) => s.namespace === namespace && s.name === name);
  if (service === undefined) return <p role="alert">Service {namespace}/{name} not found.</p>;
  const id = `${namespace}/${name}`;
  return (
    <section aria-labelledby="service-title" data-testid="service-page">
      <h2 id="service-title">
        Service {id} <small>({service.type})</small>
      </h2>
      <p>
        <a href={`#/rules?service=${encodeURIComponent(id)}`}>Rule graph of this service</a>
        {service.clusterIPs.length > 0 && service.clusterIPs[0] !== 'None' && (
          <>
            {' · '}
            <a href="#/trace">Trace a packet</a>
          </>
        )}
      </p>
      <dl>
        <dt>Cluster IPs</dt>
        <dd>{service.clusterIPs.join(', ') || '—'}</dd>
        {service.externalName !== undefined && (
          <>
            <dt>External name</dt>
            <dd>{service.externalName}</dd>
          </>
        )}
        <dt>Session affinity</dt>
        <dd>{service.sessionAffinity}</dd>
      </dl>
      <h3>Ports</h3>
      <table data-testid="ports">
        <thead>
          <tr>
            <th scope="col">NAME</th>
            <th scope="col">PROTOCOL</th>
            <th scope="col">PORT</th>
            <th scope="col">TARGET PORT</th>
            <th scope="col">NODE PORT</th>
          </tr>
        </thead>
        <tbody>
          {service.ports.map((p) => (
            <tr key={`${p.name}/${p.protocol}/${p.port}`}>
              <td>{p.name || '<unset>'}</td>
              <td>{p.protocol}</td>
              <td>{p.port}</td>
              <td>{p.targetPort}</td>
              <td>{p.nodePort ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Endpoints</h3>
      {service.endpoints.length === 0 ? (
        <p>No endpoints.</p>
      ) : (
        <table data-testid="endpoints">
          <thead>
            <tr>
              <th scope="col">ADDRESS</th>
              <th scope="col">STATE</th>
              <th scope="col">PORTS</th>
              <th scope="col">NODE</th>
              <th scope="col">TARGET</th>
            </tr>
          </thead>
          <tbody>
            {service.endpoints.map((e, i) => (
              <tr key={i} class={`endpoint-${e.state.replace(' ', '-')}`}>
                <td>{e.ip}</td>
                <td>{e.state}</td>
                <td>{e.ports.join(', ')}</td>
                <td>{e.nodeName ?? '—'}</td>
                <td>
                  {e.target ?? '—'}
                  {e.sandbox === true && <SandboxBadge />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(model.nodes ?? []).length > 0 && <NodeMatrixView service={service} token={token} node={node} />}
      <h3>Environment variables a pod gets</h3>
      <pre data-testid="env">{service.env.map((v) => `${v.name}=${v.value}`).join('\n') || '(none: this Service type has no variables)'}</pre>
      <h3>DNS records</h3>
      <pre data-testid="dns">{service.dns.join('\n') || '(none)'}</pre>
    </section>
  );
}
