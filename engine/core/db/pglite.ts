import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Param, Queryable, QueryOptions, Row } from './database';
import { lockDataDir } from './data-lock';

/**
 * PGlite's contrib ltree extension, as its `@electric-sql/pglite/contrib/ltree` module describes it (a
 * bundle beside the package's entry point); that module is not importable under this project's
 * `moduleResolution`. Loaded at start-up (22 kB) so that `CREATE EXTENSION ltree` works as on PostgreSQL.
 */
const ltree = {
  name: 'ltree',
  setup: async () => ({
    bundlePath: pathToFileURL(path.join(path.dirname(require.resolve('@electric-sql/pglite')), 'ltree.tar.gz')),
  }),
};

/**
 * PostgreSQL's buffer cache in the WebAssembly memory. initdb's 128MB took a second of every open
 * (PostgreSQL zeroes its shared memory when it starts: twice on a first start, whose initdb starts
 * an instance of its own); with 32MB it is a third of that, and queries over the scale-1 demo data
 * took as long (pages beyond the cache are read from the operating system's file cache).
 */
const SHARED_BUFFERS = '32MB';

/**
 * The embedded default: PostgreSQL in WebAssembly, in this process, one connection. PGlite queues
 * queries itself and `transaction` holds that single connection until it ends.
 * `dataDir` is a folder on disk, or `memory://` for a throw-away database.
 */
export async function openPglite(
  dataDir: string,
  opts: { statementTimeoutMs: number; holder?: string; snapshot?: Blob },
): Promise<Database> {
  const memory = dataDir.startsWith('memory://');
  if (!memory) fs.mkdirSync(dataDir, { recursive: true });
  // The folder is this process's alone until close (data-lock.ts); a second opener is refused.
  const lock = memory ? undefined : lockDataDir(dataDir, opts.holder ?? 'engine');
  let db: PGlite;
  try {
    const loadDataDir = memory ? opts.snapshot : undefined;
    db = await PGlite.create(dataDir, {
      extensions: { ltree },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
      ...(loadDataDir ? { loadDataDir } : {}),
    });
    await db.exec(`SET statement_timeout = ${Math.trunc(opts.statementTimeoutMs)}`);
  } catch (err) {
    lock?.release();
    throw err;
  }
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query(text: string, params: readonly Param[] = [], options?: QueryOptions): Promise<Row[]> {
      const res = await q.query<Row>(text, params as Param[]);
      if (!options?.onRow) return res.rows;
      for (const row of res.rows) options.onRow(row);
      return [];
    },
    async exec(script: string): Promise<void> {
      await q.exec(script);
    },
  });
  const base = wrap(db);
  return {
    kind: 'pglite',
    snapshot: () => db.dumpDataDir('none'),
    query: base.query,
    exec: base.exec,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(wrap(tx))),
    // In-process: the one connection hears its own notices; it never reconnects.
    async listen(channel, onNotify, onListen) {
      const stop = await db.listen(channel, onNotify);
      onListen?.();
      return async () => {
        if (!db.closed) await stop();
      };
    },
    setAddress: (host, port) => lock?.setAddress(host, port),
    async close() {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
