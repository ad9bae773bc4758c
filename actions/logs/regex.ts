/**
 * Loki's regular expressions (Go's RE2 syntax) rewritten for PostgreSQL's ~ operator (Spencer's ARE).
 *
 * The two dialects agree on most syntax but not on everything: PostgreSQL reads `\b` as a backspace
 * (RE2: word boundary), `\x41B` as one code point 0x41B (RE2: `A` then `B`), `.` as any character
 * including a newline (RE2: not a newline), `[[:alpha:]]` and `\w` per locale (RE2: ASCII), and it
 * has back-references and lookahead, which RE2 refuses. Rather than pass the text through and hope,
 * the pattern is parsed here and written out again construct by construct; whatever has no exact
 * PostgreSQL form is refused with its position. Bounded repetition is limited (PostgreSQL allows at
 * most 255, RE2 1000, and nested counts multiply the automaton's size), and so is the length.
 * The result is always bound as a query parameter, never put into SQL text.
 */

export class RegexError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export interface PgRegex {
  /** The pattern for PostgreSQL, to bind as a parameter. */
  pattern: string;
  /** The pattern began with (?i): use ~* / !~*. */
  insensitive: boolean;
}

const MAX_LENGTH = 1000;
const MAX_REPEAT = 255;
/** Nested bounded repetitions multiply; RE2 stops at 1000 too. */
const MAX_REPEAT_PRODUCT = 1000;

/** RE2's POSIX classes are ASCII-only; PostgreSQL's follow the locale, so they are spelled out. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\u0000-\\u007f',
  blank: '\\t ',
  cntrl: '\\u0000-\\u001f\\u007f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Perl classes, ASCII as in RE2; inside brackets the unnegated ones are spliced in. */
const PERL_CLASSES: Record<string, string> = { d: '0-9', w: '0-9A-Za-z_', s: '\\t\\n\\f\\r ' };

const SIMPLE_ESCAPES: Record<string, string> = { a: '\\a', f: '\\f', t: '\\t', n: '\\n', r: '\\r', v: '\\v' };

const hex4 = (cp: number) =>
  cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;

/** A literal character for PostgreSQL: letters and digits as they are, everything else escaped. */
function literal(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (/^[A-Za-z0-9]$/.test(ch)) return ch;
  if (cp < 0x20 || cp === 0x7f) return hex4(cp);
  if (cp < 0x80) return `\\${ch}`;
  return ch;
}

class Translator {
  i = 0;
  dotAll = false;
  /** Product of the enclosing bounded repetitions. */
  repeatScale: number[] = [1];

  constructor(readonly src: string) {}

  fail(message: string, at = this.i): never {
    throw new RegexError(at, message);
  }

  peek(n = 0): string | undefined {
    return this.src[this.i + n];
  }

  /** alternation := concat ('|' concat)* */
  alternation(depth: number): string {
    const parts = [this.concat(depth)];
    while (this.peek() === '|') {
      this.i++;
      parts.push(this.concat(depth));
    }
    return parts.join('|');
  }

  concat(depth: number): string {
    let out = '';
    for (;;) {
      const ch = this.peek();
      if (ch === undefined || ch === '|' || ch === ')') return out;
      const start = this.i;
      if ('*+?'.includes(ch)) this.fail(`missing argument to repetition operator ${ch}`);
      if (ch === '{' && this.repeatAt(this.i)) this.fail('missing argument to repetition operator {');
      const atom = this.atom(depth);
      out += atom.text + this.quantifiers(start, atom.repeatable);
    }
  }

  /** `{n}`, `{n,}` or `{n,m}` at `at`: its bounds, else undefined (then RE2 reads `{` as a literal). */
  repeatAt(at: number): { min: number; max: number | undefined; end: number } | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(at));
    if (!m) return undefined;
    return {
      min: Number(m[1]),
      max: m[2] === undefined ? Number(m[1]) : m[3] === '' ? undefined : Number(m[3]),
      end: at + m[0].length,
    };
  }

  quantifiers(atomStart: number, repeatable: boolean): string {
    const ch = this.peek();
    let q = '';
    if (ch === '*' || ch === '+' || ch === '?') {
      q = ch;
      this.i++;
    } else if (ch === '{') {
      const r = this.repeatAt(this.i);
      if (!r) return '';
      if (r.max !== undefined && r.max < r.min) this.fail('invalid repeat count: maximum below minimum');
      if (r.min > MAX_REPEAT || (r.max ?? 0) > MAX_REPEAT) this.fail(`repeat count above ${MAX_REPEAT}`);
      q = this.src.slice(this.i, r.end);
      this.i = r.end;
    } else return '';
    if (!repeatable) this.fail('repetition of an assertion (^, $, \\b ...)', atomStart);
    if (this.peek() === '?') {
      // Lazy or greedy makes no difference to whether a line matches; PostgreSQL accepts both.
      q += '?';
      this.i++;
    }
    const next = this.peek();
    if (next === '*' || next === '+' || next === '?' || (next === '{' && this.repeatAt(this.i)))
      this.fail('invalid nested repetition operator');
    return q;
  }

  atom(depth: number): { text: string; repeatable: boolean } {
    const ch = this.peek()!;
    if (ch === '(') return { text: this.group(depth), repeatable: true };
    if (ch === '[') return { text: this.bracket(), repeatable: true };
    this.i++;
    if (ch === '.') return { text: this.dotAll ? '.' : '[^\\n]', repeatable: true };
    if (ch === '^' || ch === '$') return { text: ch, repeatable: false };
    if (ch === '\\') return this.escape();
    // A character outside the BMP is two UTF-16 units: keep them together.
    const cp = this.src.codePointAt(this.i - 1)!;
    if (cp > 0xffff) this.i++;
    return { text: literal(String.fromCodePoint(cp)), repeatable: true };
  }

  group(depth: number): string {
    const open = this.i;
    if (depth >= 50) this.fail('groups nested too deeply');
    this.i++;
    let prefix = '(';
    if (this.peek() === '?') {
      const rest = this.src.slice(this.i);
      const named = /^\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (rest.startsWith('?:')) {
        prefix = '(?:';
        this.i += 2;
      } else if (named) {
        // The name only matters for extraction, which a match test does not do.
        prefix = '(?:';
        this.i += named[0].length;
      } else if (/^\?[=!]/.test(rest) || /^\?<[=!]/.test(rest)) {
        this.fail('lookaround assertions are not supported (RE2 has none)', open);
      } else {
        this.fail('flags are only supported as (?i) or (?s) at the start of the expression', open);
      }
    }
    const inner = this.alternation(depth + 1);
    if (this.peek() !== ')') this.fail('missing closing )', open);
    this.i++;
    return `${prefix}${inner})`;
  }

  /** An escape outside brackets. */
  escape(): { text: string; repeatable: boolean } {
    const at = this.i - 1;
    const ch = this.peek();
    if (ch === undefined) this.fail('trailing backslash', at);
    this.i++;
    if (ch === 'b') return { text: '\\y', repeatable: false };
    if (ch === 'B') return { text: '\\Y', repeatable: false };
    if (ch === 'A') return { text: '\\A', repeatable: false };
    if (ch === 'z') return { text: '\\Z', repeatable: false };
    if (ch in PERL_CLASSES) return { text: `[${PERL_CLASSES[ch]}]`, repeatable: true };
    if (ch.toLowerCase() in PERL_CLASSES) return { text: `[^${PERL_CLASSES[ch.toLowerCase()]}]`, repeatable: true };
    if (ch === 'Q') {
      const end = this.src.indexOf('\\E', this.i);
      const text = this.src.slice(this.i, end < 0 ? undefined : end);
      this.i = end < 0 ? this.src.length : end + 2;
      return { text: text ? `(?:${[...text].map(literal).join('')})` : '(?:)', repeatable: true };
    }
    return { text: this.charEscape(ch, at), repeatable: true };
  }

  /** Escapes that stand for one character (valid inside and outside brackets). */
  charEscape(ch: string, at: number): string {
    if (ch in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[ch];
    if (ch === 'x') return hex4(this.hexCode(at));
    if (/[0-9]/.test(ch)) this.fail('octal escapes and back-references are not supported', at);
    if (ch === 'p' || ch === 'P') this.fail('Unicode classes (\\p, \\P) are not supported', at);
    if (/[A-Za-z]/.test(ch)) this.fail(`invalid escape \\${ch}`, at);
    return literal(ch);
  }

  hexCode(at: number): number {
    let digits: string;
    if (this.peek() === '{') {
      const end = this.src.indexOf('}', this.i);
      digits = end < 0 ? '' : this.src.slice(this.i + 1, end);
      if (!/^[0-9A-Fa-f]{1,8}$/.test(digits)) this.fail('invalid escape \\x{...}', at);
      this.i = end + 1;
    } else {
      digits = this.src.slice(this.i, this.i + 2);
      if (!/^[0-9A-Fa-f]{2}$/.test(digits)) this.fail('invalid escape \\x (two hex digits expected)', at);
      this.i += 2;
    }
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff) this.fail('escape \\x beyond Unicode', at);
    return cp;
  }

  /** A bracket expression, rebuilt item by item with every non-alphanumeric character escaped. */
  bracket(): string {
    const open = this.i;
    this.i++;
    let out = '[';
    if (this.peek() === '^') {
      out += '^';
      this.i++;
    }
    let first = true;
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) this.fail('missing closing ]', open);
      if (ch === ']' && !first) {
        this.i++;
        break;
      }
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.i));
      if (posix) {
        if (posix[1]) this.fail('negated POSIX classes inside brackets are not supported', this.i);
        const cls = POSIX_CLASSES[posix[2]];
        if (!cls) this.fail(`unknown POSIX class [:${posix[2]}:]`, this.i);
        out += cls;
        this.i += posix[0].length;
        continue;
      }
      if (ch === '\\' && this.peek(1) !== undefined && this.peek(1)!.toLowerCase() in PERL_CLASSES) {
        if (this.peek(1) !== this.peek(1)!.toLowerCase())
          this.fail(`negated class \\${this.peek(1)} inside brackets is not supported`, this.i);
        out += PERL_CLASSES[this.peek(1)!];
        this.i += 2;
        continue;
      }
      const lo = this.bracketChar();
      if (this.peek() === '-' && this.peek(1) !== undefined && this.peek(1) !== ']') {
        this.i++;
        const hiAt = this.i;
        const hi = this.bracketChar();
        if (hi.cp < lo.cp) this.fail('invalid character class range', hiAt);
        out += `${lo.text}-${hi.text}`;
      } else out += lo.text;
    }
    return `${out}]`;
  }

  bracketChar(): { text: string; cp: number } {
    const at = this.i;
    const ch = this.peek()!;
    if (ch === '[' && this.peek(1) === ':') this.fail('invalid POSIX class', at);
    if (ch !== '\\') {
      const cp = this.src.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return { text: literal(String.fromCodePoint(cp)), cp };
    }
    this.i++;
    const e = this.peek();
    if (e === undefined) this.fail('trailing backslash', at);
    this.i++;
    if (e === 'x') {
      const cp = this.hexCode(at);
      return { text: hex4(cp), cp };
    }
    const text = this.charEscape(e, at);
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    return { text, cp: simple[e] ?? e.codePointAt(0)! };
  }
}

/**
 * `source` (RE2) as a PostgreSQL pattern. `anchored`: match the whole value, as Loki's label
 * matchers do (line filters match anywhere in the line).
 */
export function toPostgresRegex(source: string, anchored: boolean): PgRegex {
  if (source.length > MAX_LENGTH) throw new RegexError(0, `regular expression longer than ${MAX_LENGTH} characters`);
  const t = new Translator(source);
  let insensitive = false;
  const flags = /^\(\?([is]+)\)/.exec(source);
  if (flags) {
    insensitive = flags[1].includes('i');
    t.dotAll = flags[1].includes('s');
    t.i = flags[0].length;
  }
  const body = t.alternation(0);
  if (t.i < source.length) t.fail('unexpected )');
  checkRepeatProduct(source);
  return { pattern: anchored ? `^(?:${body})$` : body, insensitive };
}

/**
 * Nested bounded repetitions multiply the automaton ((a{200}){200} is 40,000 states), siblings only
 * add: the largest product along any nesting path must stay within the limit.
 */
function checkRepeatProduct(source: string): void {
  // Per open group: the largest product inside it so far.
  const stack: number[] = [1];
  const countAfter = (at: number) => {
    const m = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(at));
    return m ? Math.max(Number(m[1]), Number(m[2] || 0)) : 1;
  };
  const note = (value: number, at: number) => {
    if (value > MAX_REPEAT_PRODUCT)
      throw new RegexError(at, `nested repeat counts multiply beyond ${MAX_REPEAT_PRODUCT}`);
    stack[stack.length - 1] = Math.max(stack[stack.length - 1], value);
  };
  let inBracket = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inBracket) {
      if (ch === ']') inBracket = false;
      continue;
    }
    if (ch === '[') {
      inBracket = true;
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
    } else if (ch === '(') stack.push(1);
    else if (ch === ')' && stack.length > 1) {
      const inner = stack.pop()!;
      note(inner * countAfter(i + 1), i + 1);
    } else if (ch === '{') note(countAfter(i), i);
  }
}
