// The services table, cell for cell as `kubectl get svc -o wide` prints the API's Table; each
// name opens the service's page.
import { useEffect, useState } from 'preact/hooks';
import type { ExplorerModel } from '../../src/explorer-model.js';
import { humanDuration } from '@kubesvc/api-types';

export function serviceHref(namespace: string, name: string): string {
  return `#/service/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/**
 * The time, updated just after each whole second: creation timestamps have whole seconds, so
 * every Age changes then, and the page shows the new one at once rather than up to a second late.
 */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const tick = (): void => {
      setNow(Date.now());
      timer = setTimeout(tick, 1005 - (Date.now() % 1000));
    };
    timer = setTimeout(tick, 1005 - (Date.now() % 1000));
    return () => clearTimeout(timer);
  }, []);
  return now;
}

export function ServicesView({ model }: { model: ExplorerModel }) {
  const now = useNow();
  const namespaces = [...new Set(model.servicesTable.rows.map((r) => r.namespace))].sort();
  const [namespace, setNamespace] = useState('default');
  const { columns } = model.servicesTable;
  const ageColumn = columns.findIndex((c) => c.name === 'Age');
  const rows = model.servicesTable.rows.filter((r) => namespace === '' || r.namespace === namespace);
  return (
    <section aria-labelledby="services-title">
      <h2 id="services-title">Services</h2>
      <label>
        Namespace{' '}
        <select value={namespace} onChange={(e) => setNamespace((e.target as HTMLSelectElement).value)} data-testid="namespace">
          <option value="">all namespaces</option>
          {namespaces.map((ns) => (
            <option key={ns} value={ns}>
              {ns}
            </option>
          ))}
        </select>
      </label>
      <table data-testid="services-table">
        <thead>
          <tr>
            {namespace === '' && <th scope="col">NAMESPACE</th>}
            {columns.map((c) => (
              <th scope="col" key={c.name}>
                {c.name.toUpperCase()}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.namespace}/${row.name}`} data-service={`${row.namespace}/${row.name}`}>
              {namespace === '' && <td>{row.namespace}</td>}
              {row.cells.map((cell, i) => (
                <td key={i}>
                  {i === 0 ? (
                    <a href={serviceHref(row.namespace, row.name)}>{cell}</a>
                  ) : i === ageColumn && row.createdMs !== undefined ? (
                    humanDuration(now - row.createdMs)
                  ) : (
                    cell
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p>No resources found{namespace === '' ? '' : ` in ${namespace} namespace`}.</p>}
    </section>
  );
}
