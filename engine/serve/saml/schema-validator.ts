import { Worker } from 'node:worker_threads';

/**
 * SAML schema validation with @authenio/samlify-node-xmllint (xmllint compiled to JavaScript: no Java,
 * no native build), in a worker thread. The compiled xmllint ends every run the way a command-line
 * program does: it adds a process-wide `uncaughtException` listener, prints a line, and arranges for
 * `process.exit` at the next drain of stdout. In the engine's own thread that would sooner or later
 * stop the server. In the worker its printing goes nowhere (so stdout never drains), the listeners are
 * removed after each run, and should the worker end anyway, the next validation starts a new one.
 * One worker validates one message at a time; messages queue in order.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { validate } = require(workerData.module);
console.error = () => undefined;
console.log = () => undefined;
const keep = process.listeners('uncaughtException');
parentPort.on('message', ({ id, xml }) => {
  validate(xml).then(
    () => ({ id, ok: true }),
    (e) => ({ id, ok: false, message: String((e && e.message) || e) }),
  ).then((answer) => {
    for (const l of process.listeners('uncaughtException')) if (!keep.includes(l)) process.removeListener('uncaughtException', l);
    parentPort.postMessage(answer);
  });
});
`;

/** Longest one validation may take before its worker is replaced. */
const TIMEOUT_MS = 30_000;

interface Pending {
  resolve: (v: string) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function failAll(message: string): void {
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.reject(new Error(`ERR_EXCEPTION_VALIDATE_XML: ${message}`));
    pending.delete(id);
  }
}

function getWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { module: require.resolve('@authenio/samlify-node-xmllint') },
    stdout: true,
    stderr: true,
  });
  w.unref();
  w.on('message', (m: { id: number; ok: boolean; message?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve('SUCCESS_VALIDATE_XML');
    else p.reject(new Error(`ERR_EXCEPTION_VALIDATE_XML: ${m.message ?? ''}`));
  });
  const gone = (why: string) => {
    if (worker === w) worker = undefined;
    failAll(why);
  };
  w.on('error', (e) => gone(e.message));
  w.on('exit', () => gone('the validator stopped'));
  worker = w;
  return w;
}

export function validateSamlSchema(xml: string): Promise<string> {
  const w = getWorker();
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('ERR_EXCEPTION_VALIDATE_XML: schema validation timed out'));
      if (worker === w) worker = undefined;
      void w.terminate();
    }, TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    w.postMessage({ id, xml });
  });
}

/** Stops the worker (tests, shutdown). */
export async function stopSchemaValidator(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
