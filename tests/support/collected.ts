import * as v8 from 'node:v8';
import * as vm from 'node:vm';

let gc: (() => void) | undefined;

/** A full garbage collection: V8's `gc`, exposed once (the test process runs without --expose-gc). */
function fullCollection(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * Whether a full collection frees the target of `ref`: nothing the test still reaches holds it. A
 * WeakRef keeps its target until the job that made or last read it has ended, so the collection runs
 * a turn later.
 */
export async function collected(ref: WeakRef<object>): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  fullCollection();
  return ref.deref() === undefined;
}
