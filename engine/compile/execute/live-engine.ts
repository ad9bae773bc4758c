import type { Logger } from '../../core/logger';
import type { Engine } from './engine';

/** What a metadata reload did: the new model's size, or why the old one stays. */
export type ReloadResult = { ok: true; tables: number; roles: number; ms: number } | { ok: false; message: string };

/**
 * The engine that serves, replaced whole when the metadata is reloaded (POST /v1/metadata
 * reload_metadata, SIGHUP). `engine` stands for whichever is current: each call on it goes to the
 * engine current at that moment, which finishes the call, so a request in flight ends on the model it
 * began with while the next one gets the new. Building the new engine is `rebuild`'s (the metadata read
 * and checked against the database); when it fails the current engine stays and the reason is answered.
 */
export interface LiveEngine {
  /** Use it where an Engine is wanted: its methods and fields are the current engine's. */
  readonly engine: Engine;
  reload(): Promise<ReloadResult>;
}

export function liveEngine(first: Engine, rebuild: () => Promise<Engine>, log: Logger): LiveEngine {
  let current = first;
  // One reload at a time: a second asked while one runs waits for it, then reads the folder again.
  let queue: Promise<unknown> = Promise.resolve();
  // The current engine's methods bound to it, made once each rather than at every call (every request
  // calls several); a method replaced on the engine (a test's spy) is bound anew.
  let bound = new Map<PropertyKey, { fn: unknown; bound: unknown }>();
  const engine = new Proxy({} as Engine, {
    get(_, key) {
      const value = Reflect.get(current, key, current);
      if (typeof value !== 'function') return value;
      const kept = bound.get(key);
      if (kept && kept.fn === value) return kept.bound;
      const b = value.bind(current);
      bound.set(key, { fn: value, bound: b });
      return b;
    },
    set(_, key, value) {
      return Reflect.set(current, key, value, current);
    },
  });
  const reloadNow = async (): Promise<ReloadResult> => {
    const began = performance.now();
    try {
      const next = await rebuild();
      current = next;
      bound = new Map();
      const ms = Math.round(performance.now() - began);
      const result = { ok: true as const, tables: next.model.tables.length, roles: next.model.roles.length, ms };
      log({ level: 'info', msg: 'metadata reloaded', tables: result.tables, roles: result.roles, ms });
      return result;
    } catch (err) {
      const message = (err as Error).message;
      log({ level: 'error', msg: `metadata reload failed, the previous metadata stays in use: ${message}` });
      return { ok: false, message };
    }
  };
  const reload = () => {
    const run = queue.then(reloadNow);
    queue = run;
    return run;
  };
  return { engine, reload };
}
