import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitCommit } from '../engine/serve/http/version-route';
import { backendName } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * GET /version (and Hasura's /v1/version): the package's version and, from a git checkout, the commit,
 * read from the .git files without running git.
 */
const ROOT = path.join(__dirname, '..');
const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** What git itself says is checked out, or undefined where there is no git or no checkout. */
function headByGit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

describe(`GET /version on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ seed: false });
  });
  afterAll(() => server.close());

  test.each(['/version', '/v1/version'])(
    '%s: the version, and the commit checked out; no credentials needed',
    async (p) => {
      const res = await fetch(`${server.url}${p}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const head = headByGit();
      expect(await res.json()).toEqual(
        head ? { version: PACKAGE_VERSION, commit: head } : { version: PACKAGE_VERSION },
      );
    },
  );
});

describe('the commit, read from the .git files', () => {
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  let root: string;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'git-commit-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('a branch as a loose ref', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/refs/heads/main', `${A}\n`);
    expect(gitCommit(root)).toBe(A);
  });

  test('a branch in packed-refs (after git gc)', () => {
    write('.git/HEAD', 'ref: refs/heads/release\n');
    write(
      '.git/packed-refs',
      `# pack-refs with: peeled fully-peeled sorted\n${B} refs/heads/main-release\n${A} refs/heads/release\n`,
    );
    expect(gitCommit(root)).toBe(A);
  });

  test('a detached HEAD', () => {
    write('.git/HEAD', `${B}\n`);
    expect(gitCommit(root)).toBe(B);
  });

  test('a worktree: .git names its folder, whose commondir holds the refs', () => {
    write('.git', 'gitdir: repo/.git/worktrees/feature\n');
    write('repo/.git/worktrees/feature/HEAD', 'ref: refs/heads/feature\n');
    write('repo/.git/worktrees/feature/commondir', '../..\n');
    write('repo/.git/refs/heads/feature', `${B}\n`);
    expect(gitCommit(root)).toBe(B);
  });

  test('no checkout, an unborn branch or a file that is no commit: none', () => {
    expect(gitCommit(root)).toBeUndefined();
    write('.git/HEAD', 'ref: refs/heads/main\n');
    expect(gitCommit(root)).toBeUndefined();
    write('.git/refs/heads/main', 'not a commit\n');
    expect(gitCommit(root)).toBeUndefined();
  });
});
