// The CPU-time reader the side-by-side suites compare proxies and DNS servers by.
import { describe, expect, it } from 'vitest';
import { mainThreadCpuNs, schedstatNs } from './peer-process.js';

describe('schedstatNs', () => {
  it('counts the CPU time this thread spends, and not time it spends waiting', async () => {
    const before = mainThreadCpuNs() ?? 0;
    expect(before).toBeGreaterThan(0);
    // Busy until the kernel has charged this thread 20 ms of CPU: on a loaded machine that takes
    // longer than 20 ms of wall time, so the bound is generous; a counter that does not count
    // CPU time never gets there.
    const deadline = performance.now() + 30_000;
    let afterSpin = before;
    let sink = 0;
    while (afterSpin - before < 20_000_000 && performance.now() < deadline) {
      for (let i = 0; i < 100_000; i++) sink += i;
      afterSpin = mainThreadCpuNs() ?? 0;
    }
    expect(sink).toBeGreaterThan(0);
    expect(afterSpin - before).toBeGreaterThanOrEqual(20_000_000);
    await new Promise((r) => setTimeout(r, 100));
    const afterSleep = mainThreadCpuNs() ?? 0;
    // a 100 ms sleep costs a timer and a wake-up, far less than the sleep
    expect(afterSleep - afterSpin).toBeLessThan(50_000_000);
  });

  it('sums every thread of a process, and is undefined for a process that does not exist', () => {
    // the main thread first: the process's sum, read after it, can only be larger
    const main = mainThreadCpuNs() ?? Number.POSITIVE_INFINITY;
    expect(schedstatNs(process.pid)).toBeGreaterThanOrEqual(main);
    expect(schedstatNs(2 ** 22 + 1)).toBeUndefined();
  });
});
