// A CPU profile of one task of the api suite (bench/src/api.ts), for finding where a create's
// time goes: the task's setup and 30 samples of warm-up, then `samples` samples with the
// inspector's profiler on (200 µs sampling), written as a .cpuprofile (Chrome DevTools, or any
// reader of the format). Not a benchmark: the profiler slows the server down.
//   node --import tsx --conditions=@kubesvc/source bench/src/api-profile.ts <task> <samples> <out.cpuprofile>
// <task>: 0 bare creates, 1 creates with the control plane, 2 the list.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { apiSuite } from './api.js';

const [taskArg = '0', samplesArg = '300', out] = process.argv.slice(2);
const task = apiSuite().tasks[Number(taskArg)];
if (task === undefined || out === undefined) {
  console.error('usage: api-profile.ts <task 0|1|2> <samples> <out.cpuprofile>');
  process.exit(2);
}
const samples = Number(samplesArg);
await task.setup?.();
for (let i = 0; i < 30; i++) await task.fn();
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const t0 = performance.now();
for (let i = 0; i < samples; i++) await task.fn();
const elapsed = performance.now() - t0;
const { profile } = await session.post('Profiler.stop');
session.disconnect();
writeFileSync(out, JSON.stringify(profile));
console.log(`${task.name}: ${samples} samples, ${(elapsed / samples).toFixed(2)} ms each with the profiler on, profile in ${out}`);
console.log(task.metrics?.());
