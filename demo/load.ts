/**
 * Writing generated tables into the database, with a progress report.
 *
 * Two ways, one interface (`BulkTarget`): large multi-row INSERTs through the engine's `Database`
 * (PGlite, or PostgreSQL when asked), and COPY ... FROM STDIN through a postgres.js client
 * (PostgreSQL). Either way everything happens in one transaction, so a failed or interrupted run
 * leaves nothing behind.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Database, Queryable } from '../engine/core/db/database';
import type { GeneratedTable, Row, Value } from './scale';

// ---------------------------------------------------------------------------------------------
// Progress

export interface TableReport {
  table: string;
  rows: number;
  seconds: number;
}

export interface Progress {
  begin(table: string, total: number): void;
  add(rows: number): void;
  end(): TableReport;
}

/** Counts and times, prints nothing. */
export class QuietProgress implements Progress {
  private table = '';
  private rows = 0;
  private started = 0;

  begin(table: string, _total: number): void {
    this.table = table;
    this.rows = 0;
    this.started = performance.now();
  }

  add(rows: number): void {
    this.rows += rows;
  }

  end(): TableReport {
    return { table: this.table, rows: this.rows, seconds: (performance.now() - this.started) / 1000 };
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatReport(r: TableReport, width = 28): string {
  const rate = r.seconds > 0 ? r.rows / r.seconds : 0;
  return `${r.table.padEnd(width)} ${fmt(r.rows).padStart(12)} rows ${r.seconds.toFixed(1).padStart(7)} s ${fmt(rate).padStart(10)} rows/s`;
}

/**
 * A progress bar on a terminal (redrawn at most ten times a second), or, when the stream is not a
 * terminal, a line every few seconds; then one summary line per table.
 */
export class TerminalProgress extends QuietProgress {
  private total = 0;
  private lastDraw = 0;
  private name = '';
  private done = 0;
  private t0 = 0;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
    private readonly lineEveryMs = 5000,
  ) {
    super();
  }

  begin(table: string, total: number): void {
    super.begin(table, total);
    this.name = table;
    this.total = total;
    this.done = 0;
    this.t0 = performance.now();
    this.lastDraw = this.out.isTTY ? 0 : this.t0;
    if (this.out.isTTY) this.draw();
  }

  add(rows: number): void {
    super.add(rows);
    this.done += rows;
    const now = performance.now();
    if (now - this.lastDraw >= (this.out.isTTY ? 100 : this.lineEveryMs)) this.draw(now);
  }

  end(): TableReport {
    const report = super.end();
    this.out.write(`${this.out.isTTY ? '\r\x1b[2K' : ''}${formatReport(report)}\n`);
    return report;
  }

  private draw(now = performance.now()): void {
    this.lastDraw = now;
    const seconds = (now - this.t0) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const share = this.total > 0 ? Math.min(1, this.done / this.total) : 0;
    const eta = rate > 0 ? Math.max(0, (this.total - this.done) / rate) : 0;
    const text = `${this.name.padEnd(28)} ${(share * 100).toFixed(0).padStart(3)}% ${fmt(this.done)}/${fmt(this.total)} ${fmt(rate)} rows/s ETA ${eta.toFixed(0)} s`;
    if (this.out.isTTY) {
      const width = 24;
      const filled = Math.round(share * width);
      this.out.write(`\r\x1b[2K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`);
    } else {
      this.out.write(`${text}\n`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** A value as an SQL literal (standard_conforming_strings, which both databases have on). */
export function sqlLiteral(v: Value): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'string':
      return `'${v.replace(/'/g, "''")}'`;
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`demo data: ${v} is not a number PostgreSQL takes`);
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return `'${JSON.stringify(v).replace(/'/g, "''")}'`;
  }
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyString(s: string): string {
  return COPY_SPECIAL.test(s) ? s.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!) : s;
}

/** A value as a field of COPY's text format. */
export function copyField(v: Value): string {
  if (v === null) return '\\N';
  switch (typeof v) {
    case 'string':
      return copyString(v);
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`demo data: ${v} is not a number PostgreSQL takes`);
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    default:
      return copyString(JSON.stringify(v));
  }
}

export function copyLine(row: Row): string {
  let line = copyField(row[0]!);
  for (let i = 1; i < row.length; i++) line += `\t${copyField(row[i]!)}`;
  return `${line}\n`;
}

function checkWidth(table: GeneratedTable, row: Row): void {
  if (row.length !== table.columns.length)
    throw new Error(`demo data: a ${table.name} row has ${row.length} values for ${table.columns.length} columns`);
}

// ---------------------------------------------------------------------------------------------
// Targets

export interface BulkTarget {
  /** 'insert' or 'copy', for messages. */
  readonly method: string;
  /**
   * Runs `fn` in one transaction: `tx` for small statements, `load` to write generated tables.
   * Commits when `fn` returns, rolls back when it throws.
   */
  transaction<T>(
    fn: (
      tx: Queryable,
      load: (tables: readonly GeneratedTable[], progress: Progress) => Promise<TableReport[]>,
    ) => Promise<T>,
  ): Promise<T>;
}

/** Multi-row INSERT statements of at most `maxRows` rows or about `maxBytes` of SQL each. */
export function insertTarget(db: Database, opts: { maxRows?: number; maxBytes?: number } = {}): BulkTarget {
  const maxRows = opts.maxRows ?? 2000;
  const maxBytes = opts.maxBytes ?? 1 << 20;
  return {
    method: 'insert',
    transaction: (fn) =>
      db.transaction((tx) => fn(tx, (tables, progress) => insertTables(tx, tables, progress, maxRows, maxBytes))),
  };
}

async function insertTables(
  tx: Queryable,
  tables: readonly GeneratedTable[],
  progress: Progress,
  maxRows: number,
  maxBytes: number,
): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const table of tables) {
    if (table.count === 0) continue;
    progress.begin(table.name, table.count);
    const head = `INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES\n`;
    let values: string[] = [];
    let bytes = 0;
    let total = 0;
    const flush = async () => {
      if (!values.length) return;
      await tx.exec(`${head}${values.join(',\n')}`);
      progress.add(values.length);
      total += values.length;
      values = [];
      bytes = 0;
    };
    for (const batch of table.batches()) {
      for (const row of batch) {
        checkWidth(table, row);
        const text = `(${row.map(sqlLiteral).join(', ')})`;
        values.push(text);
        bytes += text.length;
        if (values.length >= maxRows || bytes >= maxBytes) await flush();
      }
    }
    await flush();
    if (total !== table.count)
      throw new Error(`demo data: ${table.name} got ${total} rows, the formula says ${table.count}`);
    reports.push(progress.end());
  }
  return reports;
}

/**
 * COPY ... FROM STDIN through postgres.js, one COPY statement per `rowsPerCopy` rows (so that the
 * server checks foreign keys and frees its queue of trigger events as it goes), written in chunks of
 * about `chunkBytes` with back-pressure.
 */
export function copyTarget(sql: postgres.Sql, opts: { rowsPerCopy?: number; chunkBytes?: number } = {}): BulkTarget {
  const rowsPerCopy = opts.rowsPerCopy ?? 250_000;
  const chunkBytes = opts.chunkBytes ?? 256 * 1024;
  return {
    method: 'copy',
    transaction: (fn) =>
      sql.begin((tx) => {
        const q: Queryable = {
          async query(text, params = []) {
            return (await tx.unsafe(text, params as string[])) as unknown as Record<string, unknown>[];
          },
          async exec(script) {
            await tx.unsafe(script).simple();
          },
        };
        return fn(q, (tables, progress) => copyTables(tx, tables, progress, rowsPerCopy, chunkBytes));
      }) as Promise<never>,
  };
}

/** Tables with fewer rows than this are written with INSERT even when COPY is at hand. */
const SMALL_TABLE_ROWS = 5000;

/** One COPY statement: write lines, then `finish()` to end it and wait for the server's answer. */
interface CopyStatement {
  write(text: string): Promise<void>;
  finish(): Promise<void>;
}

async function openCopy(tx: postgres.TransactionSql, table: GeneratedTable): Promise<CopyStatement> {
  const query = tx.unsafe(`COPY ${table.name} (${table.columns.join(', ')}) FROM STDIN`);
  // postgres.js (3.4) never settles a COPY's writable when the server rejects the data after the
  // last line (a foreign key is checked at the end of the statement): porsager/postgres#1173. The
  // query's reject is still called, so catch the error there and fail the load with it.
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => undefined);
  const q = query as unknown as { reject?: (err: unknown) => void };
  const reject = q.reject;
  if (typeof reject === 'function') {
    q.reject = (err: unknown) => {
      reject(err);
      fail(err);
    };
  }
  const stream = (await query.writable()) as Writable;
  stream.on('error', (err) => fail(err));
  return {
    async write(text) {
      if (!stream.write(text)) await Promise.race([once(stream, 'drain'), failed]);
    },
    async finish() {
      stream.end();
      await Promise.race([once(stream, 'finish'), failed]);
    },
  };
}

async function copyTables(
  tx: postgres.TransactionSql,
  tables: readonly GeneratedTable[],
  progress: Progress,
  rowsPerCopy: number,
  chunkBytes: number,
): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  const q: Queryable = { query: async () => [], exec: async (script) => void (await tx.unsafe(script).simple()) };
  for (const table of tables) {
    // A few thousand rows go faster in an INSERT or two than through COPY's extra round trips.
    if (table.count < SMALL_TABLE_ROWS) {
      reports.push(...(await insertTables(q, [table], progress, 2000, 1 << 20)));
      continue;
    }
    progress.begin(table.name, table.count);
    let copy: CopyStatement | null = null;
    let inCopy = 0;
    let chunk = '';
    let chunkRows = 0;
    let total = 0;
    const send = async () => {
      if (!chunk) return;
      await copy!.write(chunk);
      progress.add(chunkRows);
      total += chunkRows;
      chunk = '';
      chunkRows = 0;
    };
    for (const batch of table.batches()) {
      for (const row of batch) {
        checkWidth(table, row);
        if (!copy) {
          copy = await openCopy(tx, table);
          inCopy = 0;
        }
        chunk += copyLine(row);
        chunkRows++;
        inCopy++;
        if (chunk.length >= chunkBytes) await send();
        if (inCopy >= rowsPerCopy) {
          await send();
          await copy.finish();
          copy = null;
        }
      }
    }
    if (copy) {
      await send();
      await (copy as CopyStatement).finish();
    }
    if (total !== table.count)
      throw new Error(`demo data: ${table.name} got ${total} rows, the formula says ${table.count}`);
    reports.push(progress.end());
  }
  return reports;
}
