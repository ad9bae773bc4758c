import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { backendName } from './support/database';

/**
 * The Docker image's steps, run by .ci/image-check.mjs in a temporary folder (no Docker daemon here):
 * npm ci, the build, the prune, the runtime stage's copies, then the CMD with the image's environment,
 * its HEALTHCHECK, no demo tenants, `npm run admin` through the running engine, SIGTERM.
 *
 * It takes one to two and a half minutes (npm ci and tsc of a whole project, on a busy machine), too
 * long for every `npm test`: it runs with IMAGE_CHECK=1, and .ci/run runs the script itself. The image
 * uses the embedded database, so it never runs in the PostgreSQL pass.
 */
const wanted = process.env.IMAGE_CHECK === '1' && !process.env.DATABASE_URL;
const maybe = wanted ? describe : describe.skip;
if (!wanted && !process.env.DATABASE_URL)
  console.warn('image check skipped: IMAGE_CHECK=1 runs it (or node .ci/image-check.mjs; .ci/run does)');

maybe(`the Docker image's steps (${backendName})`, () => {
  test('build, start, healthy, no demo data, admin through the engine, clean stop', async () => {
    const script = path.join(__dirname, '..', '.ci', 'image-check.mjs');
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) console.log(out);
    expect(code).toBe(0);
    expect(out).toMatch(/static checks passed: node:22/);
    expect(out).toMatch(/HEALTHCHECK passed/);
    expect(out).toMatch(/npm run admin through the running engine: created tenant "Image Check"/);
    expect(out).toMatch(/SIGTERM: the engine exited 0/);
  }, 300_000);
});
