import { RequestError } from '../api';
import { RegexError, toPostgresRegex, type PgRegex } from './regex';

/**
 * Loki's LogQL log-stream selector with line filters:
 *   {namespace="production", app=~"api.*", level!="debug"} |= "timeout" != "health"
 * Label matchers: = != =~ !~ (regular expressions match the whole value, as in Loki).
 * Line filters: |= (contains) != (does not contain) |~ (matches) !~ (does not match), chained (all apply).
 * Strings are Go-quoted ("..." with escapes) or raw (`...`), as in LogQL.
 *
 * Every regular expression is translated for PostgreSQL while parsing (./regex.ts), whichever backend
 * answers, so that a query means the same thing and fails the same way on both.
 */
export type MatchOp = '=' | '!=' | '=~' | '!~';
export type LineOp = '|=' | '!=' | '|~' | '!~';
/** `value` is the string as written (for regular expressions: RE2 source, as Loki gets it). */
export interface LabelMatcher {
  label: string;
  op: MatchOp;
  value: string;
  regex?: PgRegex;
}
export interface LineFilter {
  op: LineOp;
  value: string;
  regex?: PgRegex;
}
export interface LogSelector {
  matchers: LabelMatcher[];
  filters: LineFilter[];
}

const MAX_QUERY_LENGTH = 4000;
const MAX_MATCHERS = 50;

const describe = (s: string) => (s === '' ? 'the end of the query' : JSON.stringify(s.slice(0, 12)));

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string, at = this.pos): never {
    throw new RequestError('validation-failed', `invalid log query at position ${at + 1}: ${what}`, '$.request.query');
  }

  /** "expected X" plus what is there instead. */
  expected(what: string): never {
    this.skipSpace();
    return this.fail(`expected ${what}, found ${describe(this.text.slice(this.pos))}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  eat(token: string): boolean {
    this.skipSpace();
    if (this.text.startsWith(token, this.pos)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  oneOf<T extends string>(tokens: readonly T[]): T | undefined {
    return tokens.find((t) => this.eat(t));
  }

  label(): string {
    this.skipSpace();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.pos));
    if (!m) this.expected('a label name');
    this.pos += m[0].length;
    return m[0];
  }

  /** A Go-quoted or raw string; its value and where its first character is (for regex errors). */
  string(): { value: string; at: number } {
    this.skipSpace();
    const open = this.pos;
    const quote = this.text[this.pos];
    if (quote === '`') {
      const end = this.text.indexOf('`', this.pos + 1);
      if (end < 0) this.fail('unterminated string', open);
      this.pos = end + 1;
      return { value: this.text.slice(open + 1, end), at: open + 1 };
    }
    if (quote !== '"') this.expected('a quoted string ("..." or `...`)');
    let out = '';
    for (let i = open + 1; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '"') {
        this.pos = i + 1;
        return { value: out, at: open + 1 };
      }
      if (ch === '\n') break;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const e = this.text[++i];
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\x07',
        b: '\b',
        f: '\f',
        v: '\v',
        '\\': '\\',
        '"': '"',
        "'": "'",
      };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'x' || e === 'u' || e === 'U') {
        const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.text.slice(i + 1, i + 1 + n);
        if (!new RegExp(`^[0-9A-Fa-f]{${n}}$`).test(hex) || parseInt(hex, 16) > 0x10ffff)
          this.fail(`invalid escape \\${e} in string`, i - 1);
        out += String.fromCodePoint(parseInt(hex, 16));
        i += n;
      } else {
        // Go's strings (and so LogQL's) know no other escape: a regex's \. is written "\\." or `\.`.
        this.fail(`invalid escape \\${e ?? ''} in string (write \\\\ for a backslash, or use a \`raw\` string)`, i - 1);
      }
    }
    return this.fail('unterminated string', open);
  }
}

function regexOf(r: Reader, s: { value: string; at: number }, anchored: boolean): PgRegex {
  try {
    return toPostgresRegex(s.value, anchored);
  } catch (err) {
    if (!(err instanceof RegexError)) throw err;
    // Offsets are in the decoded string: exact for raw strings and escape-free ones, close otherwise.
    return r.fail(`invalid regular expression ${JSON.stringify(s.value)}: ${err.message}`, s.at + err.offset);
  }
}

/** Whether an =~ matcher's expression matches the empty value (then it does not select streams). */
function matchesEmpty(source: string): boolean {
  try {
    return new RegExp(`^(?:${source.replace(/^\(\?[is]+\)/, '')})$`).test('');
  } catch {
    return false;
  }
}

export function parseSelector(text: unknown): LogSelector {
  if (typeof text !== 'string')
    throw new RequestError('validation-failed', 'request.query must be a string', '$.request.query');
  if (text.length > MAX_QUERY_LENGTH)
    throw new RequestError(
      'validation-failed',
      `request.query is longer than ${MAX_QUERY_LENGTH} characters`,
      '$.request.query',
    );
  const r = new Reader(text);
  if (!r.eat('{')) r.expected('{ to open the label selector');
  const matchers: LabelMatcher[] = [];
  if (!r.eat('}')) {
    do {
      const label = r.label();
      const op = r.oneOf(['=~', '!~', '!=', '='] as const) ?? r.expected('one of = != =~ !~ after the label name');
      const s = r.string();
      matchers.push(
        op === '=~' || op === '!~'
          ? { label, op, value: s.value, regex: regexOf(r, s, true) }
          : { label, op, value: s.value },
      );
      if (matchers.length > MAX_MATCHERS) r.fail(`more than ${MAX_MATCHERS} label matchers`);
    } while (r.eat(','));
    if (!r.eat('}')) r.expected(', or } after a label matcher');
  }
  const filters: LineFilter[] = [];
  for (;;) {
    r.skipSpace();
    if (r.pos >= text.length) break;
    if (text[r.pos] === '|' && !['|=', '|~'].some((t) => text.startsWith(t, r.pos)))
      r.fail(
        'only line filters (|= != |~ !~) may follow the selector; parsers and label filters (| json, | level=...) are not supported',
      );
    const op =
      r.oneOf(['|=', '!=', '|~', '!~'] as const) ?? r.expected('a line filter (|= != |~ !~) or the end of the query');
    const s = r.string();
    filters.push(
      op === '|~' || op === '!~' ? { op, value: s.value, regex: regexOf(r, s, false) } : { op, value: s.value },
    );
    if (filters.length > MAX_MATCHERS) r.fail(`more than ${MAX_MATCHERS} line filters`);
  }
  // Loki's rule: a selector must pick streams by something, not only exclude them.
  if (!matchers.some((m) => (m.op === '=' && m.value !== '') || (m.op === '=~' && !matchesEmpty(m.value)))) {
    r.fail(
      'the selector needs at least one matcher that does not match an empty value (= with a value, or =~), as in Loki',
      0,
    );
  }
  return { matchers, filters };
}

/** A Go-quoted string (LogQL): JSON's escapes are a subset of Go's. */
const quote = (s: string) => JSON.stringify(s);

/** The selector written back as LogQL, with extra matchers first (for Loki). */
export function formatSelector(sel: LogSelector, extra: LabelMatcher[] = []): string {
  const matchers = [...extra, ...sel.matchers].map((m) => `${m.label}${m.op}${quote(m.value)}`);
  const filters = sel.filters.map((f) => ` ${f.op} ${quote(f.value)}`);
  return `{${matchers.join(', ')}}${filters.join('')}`;
}
