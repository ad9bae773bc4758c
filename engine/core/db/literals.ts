import type { Param } from './database';

/**
 * A statement's values written into its text as literals, for the statements the engine plans anew on
 * each call (`QueryOptions.prepare: false`: the analytic operations marked planEachRun). postgres.js
 * sends an unnamed statement with parameters in two round trips: Parse and Describe, then, once
 * PostgreSQL has described the parameters, Bind and Execute; and it cannot pipeline it behind others.
 * Without parameters it is one simple query (postgres.ts, INLINED). PostgreSQL plans an unnamed
 * statement with its values either way, so the plan is the same. While logs_query's statements were
 * sent so, logs_selector at 32 clients went from 0.66 to 0.79-0.92 of its floor (`npm run bench --
 * v2`), the engine spending 840 → 595-615 µs of CPU a request and PostgreSQL 2,949 → 1,992-2,557; they
 * are now prepared and planned for their values all the same (sql.ts, customPlansOnly), which also
 * saves their parsing.
 *
 * Every placeholder of the engine's SQL carries a cast (`$1::uuid`), and an untyped quoted literal
 * takes its type from the cast as a parameter does, so `'…'::uuid` means what `$1::uuid` meant.
 */

/**
 * A value as an SQL literal. A value with a backslash is an escape string (E'…', its backslashes
 * doubled): it means the same whatever the server's standard_conforming_strings, so no value can end
 * its literal early.
 */
export function sqlLiteral(value: Param): string {
  if (value === null) return 'NULL';
  const quoted = `'${value.replace(/'/g, "''")}'`;
  return value.includes('\\') ? `E${quoted.replace(/\\/g, '\\\\')}` : quoted;
}

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * `text` with each placeholder `$n` replaced by the literal of `params[n - 1]`. Placeholders are found
 * as PostgreSQL's lexer finds them: not inside quoted strings ('…', E'…'), quoted identifiers, dollar-
 * quoted strings or comments, and not within a word (`a$1` is an identifier). Undefined when a value
 * cannot be written as a literal (text cannot hold a NUL character; PostgreSQL refuses it as a
 * parameter too, and the caller sends the parameters as they are), a placeholder has no value, or a
 * plain string of the text holds a backslash.
 */
export function inlineParams(text: string, params: readonly Param[]): string | undefined {
  if (params.some((p) => p !== null && p.includes('\0'))) return undefined;
  let out = '';
  let copied = 0;
  // Only these characters can start a placeholder, a string, a quoted identifier or a comment: the
  // scan jumps from one to the next (this runs on each request of a statement planned on each call).
  const special = /['"$/-]/g;
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const next = special.exec(text);
    if (!next) break;
    i = next.index;
    const ch = text[i];
    if (ch === "'") {
      const escapes = isEscapeString(text, i);
      const end = endOfString(text, i, escapes);
      // A backslash in a plain string is itself only while standard_conforming_strings is on: where
      // the string ends would depend on the server's setting, so the values stay parameters.
      if (!escapes && text.slice(i, end).includes('\\')) return undefined;
      i = end;
    } else if (ch === '"') i = endOfQuotedIdentifier(text, i);
    else if (ch === '-' && text[i + 1] === '-') i = lineEnd(text, i);
    else if (ch === '/' && text[i + 1] === '*') i = endOfComment(text, i);
    else if (ch === '$' && !(i > 0 && IDENT_CHAR.test(text[i - 1]))) {
      const number = /^\$(\d+)/.exec(text.slice(i, i + 12));
      if (number) {
        const n = Number(number[1]);
        if (n < 1 || n > params.length) return undefined;
        out += text.slice(copied, i) + sqlLiteral(params[n - 1]);
        i += number[0].length;
        copied = i;
      } else i = endOfDollarQuoted(text, i);
    } else i++;
  }
  return out + text.slice(copied);
}

/** Whether the quote at `at` opens an escape string: E'…' where the E starts a token. */
function isEscapeString(text: string, at: number): boolean {
  return at > 0 && (text[at - 1] === 'E' || text[at - 1] === 'e') && !(at > 1 && IDENT_CHAR.test(text[at - 2]));
}

/** Past the end of the string literal opened at `at` ('' is a quote; in an escape string, \x too). */
function endOfString(text: string, at: number, escapes: boolean): number {
  let i = at + 1;
  while (i < text.length) {
    if (escapes && text[i] === '\\') i += 2;
    else if (text[i] === "'") {
      if (text[i + 1] !== "'") return i + 1;
      i += 2;
    } else i++;
  }
  return text.length;
}

/** Past the end of a quoted identifier ("" is a quote inside it). */
function endOfQuotedIdentifier(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    if (text[i] === '"') {
      if (text[i + 1] !== '"') return i + 1;
      i += 2;
    } else i++;
  }
  return text.length;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end < 0 ? text.length : end + 1;
}

/** Past the end of a block comment; PostgreSQL's nest. */
function endOfComment(text: string, at: number): number {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      i += 2;
      if (--depth === 0) return i;
    } else i++;
  }
  return text.length;
}

/** Past the end of a dollar-quoted string opened at `at` ($$…$$, $tag$…$tag$); a lone $ is passed over. */
function endOfDollarQuoted(text: string, at: number): number {
  const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(at, at + 64));
  if (!tag) return at + 1;
  const end = text.indexOf(tag[0], at + tag[0].length);
  return end < 0 ? text.length : end + tag[0].length;
}
