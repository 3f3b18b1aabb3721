// The process the kill -9 test (durable.test.ts) starts and kills: a bounded loop of Service
// creates and deletes on a SQLite store, printing one line per acknowledged write, after the
// write's transaction committed. Arguments: <db path> <seed> <first name index> <max ops>.
// Not part of the package's API.
import { nextInt, seededRng } from '@kubesvc/ipallocator';
import type { Service } from '@kubesvc/api-types';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { systemClock } from '@kubesvc/store';
import { openRegistry } from './registry.js';

const [path = '', seedText = '1', firstText = '0', maxText = '200'] = process.argv.slice(2);
const store = openSqliteStore({ path, clock: systemClock });
const opened = await openRegistry({ store, clock: systemClock, seed: Number(seedText), serviceClusterIPRanges: ['10.96.0.0/22'], serviceNodePortRange: '30000-30999' });
if (!opened.ok) throw new Error(opened.error.message);
const registry = opened.value;
const ns = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
if (!ns.ok && ns.error._tag !== 'AlreadyExists') throw new Error(ns.error.message);

const live = await registry.list<Service>('services', 'default');
if (!live.ok) throw new Error(live.error.message);
const names = live.value.items.map((s) => s.metadata.name ?? '');
let rng = seededRng(Number(seedText));
const write = (line: string) => process.stdout.write(`${line}\n`);
write('ready');
let index = Number(firstText);
for (let op = 0; op < Number(maxText); op++) {
  const [roll, r1] = nextInt(rng, 10);
  rng = r1;
  if (roll < 3 && names.length > 0) {
    const [pick, r2] = nextInt(rng, names.length);
    rng = r2;
    const name = names[pick] ?? '';
    write(`begin delete ${name}`);
    const d = await registry.delete('services', 'default', name);
    if (!d.ok) throw new Error(d.error.message);
    names.splice(pick, 1);
    write(`ack delete ${name}`);
  } else {
    const name = `s-${index++}`;
    const type = roll < 6 ? 'ClusterIP' : 'NodePort';
    write(`begin create ${name}`);
    const c = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, selector: { app: name }, ports: [{ port: 80 }] } });
    if (!c.ok) throw new Error(c.error.message);
    names.push(name);
    write(`ack create ${name}`);
  }
}
write('done');
await store.close();
