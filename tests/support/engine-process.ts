import type { ChildProcess } from 'node:child_process';
import { spawnTs } from './auth';
import { poster, type TestServer } from './server';

/**
 * The real engine (engine/main.ts) in a process of its own, as it runs in production: its signal
 * handling, its exit code and its log can be watched, and a fault in it cannot disturb the test runner.
 */
export interface EngineProcess {
  url: string;
  post: TestServer['post'];
  child: ChildProcess;
  /** Everything it wrote so far (JSON log lines on stdout, anything on stderr). */
  output(): string;
  /** Its exit code once it has gone (null when ended by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, and wait for it to go. */
  stop(): Promise<number | null>;
}

/** Starts it on a random port; resolves once it listens. Rejects with its output if it exits first. */
export async function startEngineProcess(
  env: Record<string, string>,
  opts: { timeoutMs?: number; onOutput?: (all: string) => void } = {},
): Promise<EngineProcess> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const child = spawnTs('engine/main.ts', [], { PORT: '0', HOST: '127.0.0.1', ...env });
  let out = '';
  const add = (chunk: Buffer) => {
    out += chunk;
    opts.onOutput?.(out);
  };
  child.stdout!.on('data', add);
  child.stderr!.on('data', add);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the engine process did not start:\n${out}`)), timeoutMs);
    const onData = () => {
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(`http://127.0.0.1:${m[1]}`);
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the engine process exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    post: poster(url),
    child,
    output: () => out,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the engine to its end (a start-up that fails): exit code, output and how long it took. */
export async function runEngineToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string; ms: number }> {
  const start = Date.now();
  const child = spawnTs('engine/main.ts', [], { PORT: '0', HOST: '127.0.0.1', ...env });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, output: out, ms: Date.now() - start };
}
