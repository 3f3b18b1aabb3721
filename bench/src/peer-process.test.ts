// The CPU-time reader the side-by-side suites compare proxies and DNS servers by.
import { describe, expect, it } from 'vitest';
import { mainThreadCpuNs, mainThreadMinorFaults, schedstatNs } from './peer-process.js';

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

describe('mainThreadMinorFaults', () => {
  it("counts the main thread's fresh pages: a new 8 MiB buffer written page by page adds most of its 2,048", () => {
    const before = mainThreadMinorFaults();
    expect(before).toBeGreaterThan(0);
    const pages = 2048;
    const fresh = new Uint8Array(pages * 4096);
    for (let i = 0; i < fresh.length; i += 4096) fresh[i] = 1;
    const after = mainThreadMinorFaults() ?? 0;
    expect(fresh[4096]).toBe(1);
    // A large zero-filled buffer is fresh pages from the kernel, each faulted in on its first write.
    expect(after - (before ?? 0)).toBeGreaterThanOrEqual(pages / 2);
    // Reading the counter again touches no new page of any size that matters.
    expect((mainThreadMinorFaults() ?? 0) - after).toBeLessThan(64);
  });
});
