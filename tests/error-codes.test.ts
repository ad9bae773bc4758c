import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every error code the engine and its operations can answer with, read from the source (the ErrorCode
 * type, RequestError and problem() calls, `code: '...'` fields of answers), so that a code added with
 * another spelling fails here. Codes are Hasura's style, lower-case words joined by hyphens
 * (`not-found`, never `not_found`), and the README's "Error codes" list names exactly these.
 */
const ROOT = path.join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The members of the ErrorCode union in engine/core/errors.ts. */
function errorCodeType(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'engine', 'core', 'errors.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]+);/.exec(text)![1];
  return [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

const USES = [/RequestError\(\s*'([^']+)'/g, /problem\(\s*c,\s*\d+,\s*'([^']+)'/g, /\bcode:\s*'([^']+)'/g];

/** Each code written in engine/ and actions/, with the files that write it. */
function codesInSource(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of [...sourceFiles(path.join(ROOT, 'engine')), ...sourceFiles(path.join(ROOT, 'actions'))]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of USES)
      for (const m of text.matchAll(pattern)) found.set(m[1], [...(found.get(m[1]) ?? []), path.relative(ROOT, file)]);
  }
  return found;
}

const HASURA_STYLE = /^[a-z]+(-[a-z]+)*$/;

describe('error codes', () => {
  const declared = errorCodeType();
  const used = codesInSource();
  const all = [...new Set([...declared, ...used.keys()])].sort();

  test('the source is read: the known codes are found where they are written', () => {
    expect(declared).toEqual(expect.arrayContaining(['validation-failed', 'not-found', 'permission-error']));
    expect(used.get('not-found')).toEqual(expect.arrayContaining([path.join('actions', 'ai', 'budget.ts')]));
    expect(used.get('too-many-requests')).toEqual([path.join('engine', 'serve', 'http', 'auth-routes.ts')]);
    expect(all.length).toBeGreaterThan(15);
  });

  test("every code is spelled Hasura's way", () => {
    const wrong = all
      .filter((c) => !HASURA_STYLE.test(c))
      .map((c) => `${c} (${(used.get(c) ?? ['ErrorCode']).join(', ')})`);
    expect(wrong).toEqual([]);
  });

  test('the README lists exactly the codes the engine answers with', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = /\n## Error codes\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    const listed = [...section.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(all);
  });
});
