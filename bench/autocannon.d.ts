/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      /** Several: the connections are spread over them in turn. */
      url: string | string[];
      connections?: number;
      /** Seconds. */
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      pipelining?: number;
      /** Seconds. */
      timeout?: number;
      /** Sent in turn on each connection; `onResponse` sees each answer's status and body. */
      requests?: { method?: string; body?: string; onResponse?: (status: number, body: string) => void }[];
    }
    interface Result {
      /** Seconds the run took. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      requests: { total: number; average: number };
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }
  function autocannon(
    opts: autocannon.Options,
    cb: (err: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  export = autocannon;
}
