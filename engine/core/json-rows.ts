import type { Row } from './db/database';

/**
 * A list of rows an action answers as JSON text, written by PostgreSQL (logs_query's lines) or by
 * the engine from the columns' texts (TextRowsWriter: the analytic operations), so that the engine
 * can put the text into the answer as it is instead of parsing it into objects, completing each row
 * and writing it out again (half of the engine's CPU on logs_query's 500 lines). The handler says the
 * text's shape: a JSON array of objects, each with exactly the keys of `columns` in that order, no
 * row null, and each value of its column's kind (or null where nullable).
 *
 * Where the request's selection is not that shape (a subset, aliases, __typename, another order, a
 * GraphQL type that would write the value otherwise) the rows are read from the text and answered as
 * any other action's: the iterator parses them, which is how graphql-js and the engine's direct path
 * (compile/execute/direct-field.ts) read a list.
 */
export class JsonRows implements Iterable<unknown> {
  constructor(
    readonly text: string,
    readonly columns: readonly JsonColumn[],
  ) {}

  [Symbol.iterator](): Iterator<unknown> {
    return (JSON.parse(this.text) as unknown[])[Symbol.iterator]();
  }
}

/** A key of each row, the kind of JSON value it holds, and whether it may be null. */
export interface JsonColumn {
  key: string;
  kind: JsonKind;
  nullable: boolean;
}

/** A JSON string, a number, a number without a fraction, true or false, or any JSON value. */
export type JsonKind = 'string' | 'number' | 'integer' | 'boolean' | 'any';

/**
 * How a column's text (what PostgreSQL's `::text` writes of its value) reads as JSON:
 * - `string`: a string's text, written quoted;
 * - `json`: JSON text already (jsonb's, to_json's), written as it is;
 * - `literal`: a number's or a boolean's text, written as it is where it is a JSON number or true or
 *   false, and quoted where it is not (float8's NaN and Infinity, which to_json quotes as well).
 */
export type TextForm = 'string' | 'json' | 'literal';

/** What JSON.stringify escapes in a string (a surrogate only when unpaired, but any sends the string there). */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A number's text that JSON reads as a number, or a boolean's (PostgreSQL's ::text writes true, false). */
const JSON_LITERAL = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false)$/;

/**
 * Rows of text columns written as the JSON text JsonRows holds. A statement that returns each value's
 * text and lets the engine write the rows' JSON costs PostgreSQL less than one that writes it:
 * row_to_json took about 1 µs a row more than returning the same columns (auto_playbook_v2's 50 rows:
 * 180-195 µs a statement against 127-136), on the database's cores, which the bench's heavy runs keep
 * busy. Made once per statement shape; `names[i]` is the row's column that holds `columns[i]`.
 */
export class TextRowsWriter {
  private readonly prefixes: string[];

  constructor(
    readonly columns: readonly JsonColumn[],
    private readonly names: readonly string[],
    private readonly forms: readonly TextForm[],
  ) {
    this.prefixes = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.key)}:`);
  }

  /** The first `count` rows (at most all of them) as JsonRows. */
  rows(rows: readonly Row[], count = rows.length): JsonRows {
    const n = Math.min(count, rows.length);
    let text = '[';
    for (let r = 0; r < n; r++) {
      const row = rows[r];
      if (r > 0) text += ',';
      for (let i = 0; i < this.names.length; i++)
        text += this.prefixes[i] + valueJson(row[this.names[i]], this.forms[i]);
      text += this.names.length ? '}' : '{}';
    }
    return new JsonRows(`${text}]`, this.columns);
  }
}

/**
 * One value's JSON from its text (see TextForm); SQL's null is null. A value a driver read into
 * something else than its text (the statements cast every column to text, so none should) is written
 * as JSON.stringify writes it.
 */
function valueJson(value: unknown, form: TextForm): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'string') return JSON.stringify(form === 'string' ? String(value) : value);
  if (form === 'json' || (form === 'literal' && JSON_LITERAL.test(value))) return value;
  // Most strings need no escape: quoting them is about a third cheaper than JSON.stringify.
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}
