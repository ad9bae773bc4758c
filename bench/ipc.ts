import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/**
 * A tiny request/reply protocol over the IPC channel of `child_process.fork`, so that the servers
 * under test and the load generator each run in a process (and an event loop) of their own.
 */
interface Envelope {
  id: number;
  type: string;
  payload?: unknown;
}
interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface Child {
  readonly pid: number;
  call<T>(type: string, payload?: unknown): Promise<T>;
  /** Resolves with the exit code once the process has gone. */
  exited: Promise<number | null>;
  kill(): void;
}

/** Forks a compiled bench module (a sibling of this file in dist/bench). */
export function forkChild(module: string, execArgv: string[] = []): Child {
  const proc: ChildProcess = fork(path.join(__dirname, module), [], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 1;
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      for (const p of pending.values()) p.reject(new Error(`${module} exited (code ${code}) before answering`));
      pending.clear();
      resolve(code);
    }),
  );
  proc.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new Error(`${module}: ${m.error}`));
  });
  return {
    pid: proc.pid!,
    exited,
    call<T>(type: string, payload?: unknown): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        proc.send({ id, type, payload } satisfies Envelope);
      });
    },
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill();
    },
  };
}

/** In a child: answers the parent's calls with `handlers`; the process ends when the parent goes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function serveCalls(handlers: Record<string, (payload: any) => Promise<unknown> | unknown>): void {
  process.on('message', async (m: Envelope) => {
    const handler = handlers[m.type];
    try {
      if (!handler) throw new Error(`unknown call "${m.type}"`);
      const result = await handler(m.payload);
      process.send!({ id: m.id, ok: true, result } satisfies Reply);
    } catch (err) {
      process.send!({ id: m.id, ok: false, error: (err as Error)?.stack ?? String(err) } satisfies Reply);
    }
  });
  process.on('disconnect', () => process.exit(0));
}
