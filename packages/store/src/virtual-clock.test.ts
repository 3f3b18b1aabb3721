import { describe, expect, it } from 'vitest';
import { systemClock } from './system-clock.js';
import { virtualClock } from './virtual-clock.js';

describe('virtualClock', () => {
  it('starts where it is told and moves only on advance', () => {
    const clock = virtualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(250);
    expect(clock.now()).toBe(1_250);
    clock.advanceTo(1_100);
    expect(clock.now()).toBe(1_250);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('fires due timers in time order, ties in the order they were set, with now() at the due time', () => {
    const clock = virtualClock(0);
    const fired: string[] = [];
    const at = (name: string) => () => fired.push(`${name}@${clock.now()}`);
    clock.setTimer(30, at('c'));
    clock.setTimer(10, at('a'));
    clock.setTimer(20, at('b1'));
    clock.setTimer(20, at('b2'));
    clock.setTimer(31, at('late'));
    clock.advance(30);
    expect(fired).toEqual(['a@10', 'b1@20', 'b2@20', 'c@30']);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    expect(fired.at(-1)).toBe('late@31');
  });

  it('fires a timer set by a timer when it falls due within the same advance', () => {
    const clock = virtualClock(0);
    const fired: number[] = [];
    clock.setTimer(5, () => {
      fired.push(clock.now());
      clock.setTimer(clock.now() + 5, () => fired.push(clock.now()));
      clock.setTimer(clock.now() + 50, () => fired.push(clock.now()));
    });
    clock.advance(20);
    expect(fired).toEqual([5, 10]);
    expect(clock.now()).toBe(20);
  });

  it('a timer in the past fires on the next advance, even advance(0)', () => {
    const clock = virtualClock(100);
    let fired = 0;
    clock.setTimer(50, () => fired++);
    clock.advance(0);
    expect(fired).toBe(1);
    expect(clock.now()).toBe(100);
  });

  it('a cancelled timer never fires, and cancelling twice or after firing is harmless', () => {
    const clock = virtualClock(0);
    let fired = 0;
    const cancel = clock.setTimer(10, () => fired++);
    const other = clock.setTimer(10, () => fired++);
    cancel();
    cancel();
    clock.advance(10);
    expect(fired).toBe(1);
    other();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('systemClock', () => {
  it('reads the wall clock and fires a real timer at or after its time', async () => {
    const before = Date.now();
    expect(Math.abs(systemClock.now() - before)).toBeLessThan(1_000);
    const start = Date.now();
    const firedAt = await new Promise<number>((resolve) => {
      systemClock.setTimer(start + 20, () => resolve(Date.now()));
    });
    expect(firedAt - start).toBeGreaterThanOrEqual(19);
  });

  it('a cancelled timer does not fire', async () => {
    let fired = false;
    const cancel = systemClock.setTimer(Date.now() + 5, () => {
      fired = true;
    });
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fired).toBe(false);
  });
});
