// The CPU-time reader the side-by-side suites compare proxies and DNS servers by.
import { describe, expect, it } from 'vitest';
import { mainThreadCpuNs, schedstatNs } from './peer-process.js';

describe('schedstatNs', () => {
  it('counts the CPU time this thread spends, and not time it spends waiting', async () => {
    const before = mainThreadCpuNs();
    expect(before).toBeGreaterThan(0);
    const spinUntil = performance.now() + 50;
    while (performance.now() < spinUntil) {
      // busy: the kernel charges this thread for these 50 ms (less if it was preempted)
    }
    const afterSpin = mainThreadCpuNs() ?? 0;
    await new Promise((r) => setTimeout(r, 100));
    const afterSleep = mainThreadCpuNs() ?? 0;
    expect(afterSpin - (before ?? 0)).toBeGreaterThan(5_000_000);
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
