import { RequestError } from '../../engine/plan/errors';

/**
 * Loki's LogQL log-stream selector with line filters:
 *   {namespace="production", app=~"api.*", level!="debug"} |= "timeout" != "health"
 * Label matchers: = != =~ !~ (regular expressions match the whole value, as in Loki).
 * Line filters: |= (contains) != (does not contain) |~ (matches) !~ (does not match).
 */
export type MatchOp = '=' | '!=' | '=~' | '!~';
export type LineOp = '|=' | '!=' | '|~' | '!~';
/** `insensitive`: the regular expression began with Go's `(?i)` flag, which is taken off `value`. */
export interface LabelMatcher { label: string; op: MatchOp; value: string; insensitive?: boolean }
export interface LineFilter { op: LineOp; value: string; insensitive?: boolean }
export interface LogSelector { matchers: LabelMatcher[]; filters: LineFilter[] }

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new RequestError('validation-failed', `invalid log query at position ${this.pos + 1}: ${what}`, '$.request.query');
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
    if (!m) this.fail('expected a label name');
    this.pos += m[0].length;
    return m[0];
  }

  string(): string {
    this.skipSpace();
    const quote = this.text[this.pos];
    if (quote === '`') {
      const end = this.text.indexOf('`', this.pos + 1);
      if (end < 0) this.fail('unterminated string');
      const s = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      return s;
    }
    if (quote !== '"') this.fail('expected a quoted string');
    let out = '';
    for (let i = this.pos + 1; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '\\' && i + 1 < this.text.length) {
        const next = this.text[++i];
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      } else if (ch === '"') {
        this.pos = i + 1;
        return out;
      } else out += ch;
    }
    return this.fail('unterminated string');
  }
}

/** Loki's regular expressions are Go's (RE2); a leading `(?i)` is the one flag commonly used. */
function regex(value: string, r: Reader): { value: string; insensitive?: boolean } {
  const insensitive = value.startsWith('(?i)');
  const body = insensitive ? value.slice(4) : value;
  try {
    new RegExp(body);
  } catch {
    r.fail(`invalid regular expression ${JSON.stringify(value)}`);
  }
  return insensitive ? { value: body, insensitive } : { value: body };
}

export function parseSelector(text: string): LogSelector {
  const r = new Reader(text);
  if (!r.eat('{')) r.fail('a selector starts with {');
  const matchers: LabelMatcher[] = [];
  if (!r.eat('}')) {
    do {
      const label = r.label();
      const op = r.oneOf(['=~', '!~', '!=', '='] as const) ?? r.fail('expected one of = != =~ !~');
      const value = r.string();
      matchers.push(op === '=~' || op === '!~' ? { label, op, ...regex(value, r) } : { label, op, value });
    } while (r.eat(','));
    if (!r.eat('}')) r.fail('expected , or }');
  }
  const filters: LineFilter[] = [];
  for (;;) {
    r.skipSpace();
    if (r.pos >= text.length) break;
    const op = r.oneOf(['|=', '!=', '|~', '!~'] as const) ?? r.fail('expected a line filter (|= != |~ !~)');
    const value = r.string();
    filters.push(op === '|~' || op === '!~' ? { op, ...regex(value, r) } : { op, value });
  }
  if (!matchers.some((m) => m.op === '=' || m.op === '=~')) {
    r.pos = 0;
    r.fail('at least one matcher must be = or =~ (as in Loki)');
  }
  return { matchers, filters };
}
