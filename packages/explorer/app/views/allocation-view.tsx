// The service CIDR's bitmap. A range of more than 1024 addresses is drawn as 1024 blocks (or
// fewer) of equal size, each shaded by how many of its addresses are held; choosing a block
// zooms into its addresses. The static band, the kubernetes Service's first IP, leaks and
// duplicates are marked; each held address links to its Service.
import { useState } from 'preact/hooks';
import type { AllocatedIP, AllocationRange, ExplorerModel } from '../../src/explorer-model.js';
import { serviceHref } from './services-view.js';

const MAX_CELLS = 1024;

function blockSizeOf(size: number): number {
  let block = 1;
  while (size / block > MAX_CELLS) block *= 2;
  return block;
}

function cellClass(first: number, count: number, range: AllocationRange, used: readonly AllocatedIP[]): string {
  const classes = ['cell', first < range.staticSize ? 'static' : 'dynamic'];
  if (used.length > 0) classes.push('used');
  if (used.some((u) => u.leaked)) classes.push('leaked');
  if (used.some((u) => u.holders.length > 1)) classes.push('duplicate');
  if (count > 1 && used.length > 0) classes.push(used.length * 4 >= count ? 'dense' : 'sparse');
  return classes.join(' ');
}

function holderText(u: AllocatedIP): string {
  if (u.leaked) return 'leaked: held by no Service';
  return u.holders.join(', ');
}

function RangeMap({ range }: { range: AllocationRange }) {
  const block = blockSizeOf(range.size);
  const [zoom, setZoom] = useState<number | undefined>(undefined);
  const byOffset = new Map(range.used.map((u) => [u.offset, u]));
  const usedIn = (first: number, count: number) => range.used.filter((u) => u.offset >= first && u.offset < first + count);

  if (block > 1 && zoom === undefined) {
    const blocks = Math.ceil(range.size / block);
    return (
      <>
        <p>
          {blocks} blocks of {block} addresses; choose one to see its addresses.
        </p>
        <div class="grid" role="group" aria-label={`blocks of ${range.range}`} data-testid="allocation-blocks">
          {Array.from({ length: blocks }, (_, i) => {
            const first = i * block;
            const count = Math.min(block, range.size - first);
            const used = usedIn(first, count);
            return (
              <button
                key={i}
                type="button"
                class={cellClass(first, count, range, used)}
                data-block={i}
                data-used={used.length}
                aria-label={`block ${i}: offsets ${first} to ${first + count - 1}, ${used.length} held`}
                title={`offsets ${first}–${first + count - 1}: ${used.length} held`}
                onClick={() => setZoom(i)}
              />
            );
          })}
        </div>
      </>
    );
  }
  const first = zoom === undefined ? 0 : zoom * block;
  const count = Math.min(zoom === undefined ? range.size : block, range.size - first);
  return (
    <>
      {zoom !== undefined && (
        <p>
          <button type="button" onClick={() => setZoom(undefined)} data-testid="zoom-out">
            Back to all blocks
          </button>{' '}
          Block {zoom}: offsets {first}–{first + count - 1}
        </p>
      )}
      <div class="grid" role="group" aria-label={`addresses of ${range.range}`} data-testid="allocation-cells">
        {Array.from({ length: count }, (_, i) => {
          const offset = first + i;
          const u = byOffset.get(offset);
          const className = cellClass(offset, 1, range, u === undefined ? [] : [u]);
          if (u === undefined) return <span key={offset} class={className} data-offset={offset} />;
          const [ns = '', name = ''] = (u.holders[0] ?? '/').split('/');
          const label = `${u.ip}: ${holderText(u)}${offset === 0 ? ' (first IP)' : ''}`;
          return u.holders.length > 0 ? (
            <a key={offset} class={className} href={serviceHref(ns, name)} data-offset={offset} data-ip={u.ip} aria-label={label} title={label} />
          ) : (
            <span key={offset} class={className} data-offset={offset} data-ip={u.ip} title={label} tabIndex={0} aria-label={label} />
          );
        })}
      </div>
    </>
  );
}

export function AllocationView({ model }: { model: ExplorerModel }) {
  const { allocation } = model;
  return (
    <section aria-labelledby="allocation-title">
      <h2 id="allocation-title">Allocation map</h2>
      <p class="legend">
        <span class="cell static" /> static band <span class="cell dynamic" /> dynamic band <span class="cell used" /> held{' '}
        <span class="cell used leaked" /> leaked <span class="cell used duplicate" /> duplicate
      </p>
      {allocation.ranges.map((range) => (
        <div key={range.range} data-testid="allocation-range" data-range={range.range}>
          <h3>
            {range.range}: {range.used.length} of {range.size} held, first IP {range.firstIP}, static band offsets 0–{range.staticSize - 1}
          </h3>
          <RangeMap range={range} />
          <table data-testid="allocated-ips">
            <thead>
              <tr>
                <th scope="col">IP</th>
                <th scope="col">BAND</th>
                <th scope="col">HELD BY</th>
              </tr>
            </thead>
            <tbody>
              {range.used.map((u) => (
                <tr key={u.offset} data-ip={u.ip} class={u.leaked ? 'leaked' : u.holders.length > 1 ? 'duplicate' : ''}>
                  <td>{u.ip}</td>
                  <td>{u.offset === 0 ? 'first' : u.offset < range.staticSize ? 'static' : 'dynamic'}</td>
                  <td>
                    {u.leaked
                      ? 'leaked (no Service)'
                      : u.holders.map((h, i) => {
                          const [ns = '', name = ''] = h.split('/');
                          return (
                            <span key={h}>
                              {i > 0 && ', '}
                              <a href={serviceHref(ns, name)}>{h}</a>
                            </span>
                          );
                        })}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <h3>Last repair run</h3>
      <p>{allocation.fromStoredSnapshot ? 'From the stored allocation bitmap.' : 'No stored bitmap: leaks cannot be seen.'}</p>
      <ul data-testid="repair-events">
        {allocation.repairEvents.length === 0 ? <li>nothing to repair</li> : allocation.repairEvents.map((e) => <li key={e}>{e}</li>)}
      </ul>
    </section>
  );
}
