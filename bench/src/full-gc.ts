// A full garbage collection from inside a bench run, for the suites that measure what a state
// keeps alive. The bench runs without --expose-gc; the flag can still be set at run time, and
// a new context then sees the `gc` function.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/** Two full collections: the second frees what the first only finalised. */
export function fullGC(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  collect();
}
