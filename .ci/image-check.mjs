#!/usr/bin/env node
// The Docker image's steps without a Docker daemon: reads the Dockerfile and runs what it says in a
// temporary folder, one folder per stage standing in for its filesystem. The build context is this
// repository less .dockerignore; COPY copies, RUN runs in a shell in the stage's WORKDIR with its ENV,
// absolute paths of the image (its WORKDIRs) pointing into the stage's folder. Then the last stage's CMD
// starts with the image's environment (PORT replaced by a free one, ADMIN_SECRET and NEXTAUTH_SECRET
// made up), the HEALTHCHECK command runs until it passes, and what the image promises is checked:
// the data folder is inside a VOLUME, no demo tenants, `npm run admin` through the running engine (what
// `docker exec <container> npm run admin -- ...` does), no compiler in the image, a clean SIGTERM.
//
// What it cannot show: the base image itself (the steps run with this machine's Node, which it names
// when its major differs from the image's), file ownership (chown and USER need the image's users;
// USER is checked to be someone other than root), and the image's size.
//
// Usage: node .ci/image-check.mjs   (KEEP=1 keeps the temporary folder)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const say = (msg) => process.stdout.write(`[image-check ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const fail = (msg) => {
  throw new Error(msg);
};

/** The Dockerfile's instructions: continuation lines joined, comments dropped. */
export function parseDockerfile(text) {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  return lines
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l);
      if (!m) fail(`Dockerfile: cannot read "${l}"`);
      return { op: m[1].toUpperCase(), args: m[2].trim() };
    });
}

/** A JSON-array (exec form) or shell-form command as argv. */
const argv = (text) => (text.startsWith('[') ? JSON.parse(text) : ['sh', '-c', text]);

/** `KEY=value KEY2="v w"` as pairs. */
function envPairs(text) {
  const pairs = [];
  const re = /(\w+)=("([^"]*)"|\S*)/g;
  let m;
  while ((m = re.exec(text))) pairs.push([m[1], m[3] ?? m[2]]);
  return pairs;
}

/** The build context's filter: .dockerignore's entries (plain names and paths only). */
function contextFilter() {
  const file = path.join(REPO, '.dockerignore');
  const ignored = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split(/\r?\n/)
        .map((l) => l.trim().replace(/^\/+|\/+$/g, ''))
        .filter((l) => l && !l.startsWith('#'))
    : [];
  for (const entry of ignored)
    if (/[*?![\]]/.test(entry)) fail(`.dockerignore: patterns are not supported here: ${entry}`);
  return (abs) => {
    const rel = path.relative(REPO, abs).split(path.sep).join('/');
    return !ignored.some((i) => rel === i || rel.startsWith(`${i}/`));
  };
}

/** Runs the Dockerfile's stages; the last one's state (folder, workdir, env, user, volumes, cmd, healthcheck). */
function build(instructions, tmp) {
  const stages = [];
  const roots = new Set(instructions.filter((i) => i.op === 'WORKDIR').map((i) => i.args));
  // The image's absolute paths, inside the stage's folder.
  const mapPaths = (text, root) => {
    let out = text;
    for (const r of roots) {
      const esc = r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      out = out.replace(new RegExp(`(^|[\\s="'])${esc}(?=/|$|[\\s"'])`, 'g'), `$1${root}${r}`);
    }
    return out;
  };
  const inContext = contextFilter();
  const noChown = spawnSync('id', ['node']).status !== 0;
  let stage;
  for (const { op, args } of instructions) {
    if (op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      const root = path.join(tmp, `stage${stages.length}`);
      fs.mkdirSync(root, { recursive: true });
      stage = {
        image: m[1],
        name: m[2],
        root,
        workdir: '/',
        env: {},
        user: 'root',
        volumes: [],
        cmd: undefined,
        health: undefined,
      };
      stages.push(stage);
      continue;
    }
    if (!stage) fail(`Dockerfile: ${op} before FROM`);
    const here = path.join(stage.root, stage.workdir);
    switch (op) {
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args);
        fs.mkdirSync(path.join(stage.root, stage.workdir), { recursive: true });
        break;
      case 'ENV':
        for (const [k, v] of envPairs(args)) stage.env[k] = v;
        break;
      case 'COPY': {
        const parts = args.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? parts.shift().slice('--from='.length) : undefined;
        if (parts.some((p) => p.startsWith('--'))) fail(`COPY: only --from is supported here: ${args}`);
        const dest = parts.pop();
        const source = from ? stages.find((s) => s.name === from || String(stages.indexOf(s)) === from) : undefined;
        if (from && !source) fail(`COPY --from=${from}: no such stage`);
        for (const src of parts) {
          const abs = source ? path.join(source.root, src) : path.join(REPO, src);
          if (!fs.existsSync(abs)) fail(`COPY ${src}: not found`);
          const destAbs = path.join(dest.startsWith('/') ? stage.root : here, dest);
          const target =
            dest.endsWith('/') && fs.statSync(abs).isFile() ? path.join(destAbs, path.basename(src)) : destAbs;
          fs.cpSync(abs, target, { recursive: true, verbatimSymlinks: true, filter: source ? undefined : inContext });
        }
        say(`COPY ${args}`);
        break;
      }
      case 'RUN': {
        say(`RUN ${args}`);
        // Ownership needs the image's users; where they do not exist, chown is noted and skipped.
        const prelude = noChown ? 'chown() { echo "(chown $* skipped: the image\'s users do not exist here)"; }; ' : '';
        const r = spawnSync('sh', ['-c', prelude + mapPaths(args, stage.root)], {
          cwd: here,
          env: { ...process.env, ...mapEnv(stage.env, (v) => mapPaths(v, stage.root)) },
          stdio: 'inherit',
        });
        if (r.status !== 0) fail(`RUN ${args}: exit ${r.status}`);
        break;
      }
      case 'USER':
        stage.user = args;
        break;
      case 'VOLUME':
        stage.volumes.push(...(args.startsWith('[') ? JSON.parse(args) : args.split(/\s+/)));
        break;
      case 'EXPOSE':
        break;
      case 'CMD':
        stage.cmd = argv(args);
        break;
      case 'HEALTHCHECK': {
        const m = /CMD\s+(.*)$/.exec(args);
        if (!m) fail('HEALTHCHECK without CMD');
        stage.health = argv(m[1].trim());
        break;
      }
      default:
        fail(`Dockerfile: ${op} is not supported by this check; teach .ci/image-check.mjs`);
    }
  }
  return { stage, mapPaths: (v) => mapPaths(v, stage.root) };
}

const mapEnv = (env, map) => Object.fromEntries(Object.entries(env).map(([k, v]) => [k, map(v)]));

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** The Node.js flags before a `node ...` command's script: the heap's bounds and how the collector runs (README "Memory"). */
const nodeFlags = (words) => {
  const end = words.findIndex((w, i) => i > 0 && !w.startsWith('--'));
  return words.slice(1, end < 0 ? words.length : end).join(' ');
};

/** The image runs the engine with the flags `npm start` gives it (package.json), CMD and start script alike. */
function sameNodeFlags(stage) {
  const wanted = nodeFlags(
    JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts.start.split(/\s+/),
  );
  const imagePkg = JSON.parse(fs.readFileSync(path.join(stage.root, stage.workdir, 'package.json'), 'utf8'));
  for (const [what, words] of [
    ['CMD', stage.cmd],
    ["the image's start script", imagePkg.scripts.start.split(/\s+/)],
  ]) {
    if (nodeFlags(words) !== wanted)
      fail(`${what} runs node with "${nodeFlags(words)}", npm start with "${wanted}": give them the same flags`);
  }
}

/** What the image is before it starts: maintained Node, not root, data in a volume, no compiler. */
function staticChecks(stage, instructions, env) {
  for (const from of instructions.filter((i) => i.op === 'FROM')) {
    const m = /^node:(\d+)/.exec(from.args);
    if (!m || Number(m[1]) < 22 || Number(m[1]) % 2 !== 0)
      fail(`FROM ${from.args}: not a maintained Node LTS (22 or later, even)`);
  }
  const imageMajor = /^node:(\d+)/.exec(stage.image)[1];
  if (process.versions.node.split('.')[0] !== imageMajor)
    say(`note: the steps ran with this machine's Node ${process.version}; the image has Node ${imageMajor}`);
  if (!stage.user || stage.user === 'root' || stage.user === '0') fail('the image runs as root: add USER');
  if (!stage.cmd) fail('no CMD');
  if (!stage.health) fail('no HEALTHCHECK');
  sameNodeFlags(stage);
  const dataDir = stage.env.DATA_DIR;
  if (!dataDir || !stage.volumes.some((v) => dataDir === v || dataDir.startsWith(`${v}/`)))
    fail(`DATA_DIR (${dataDir}) is not inside a VOLUME (${stage.volumes.join(', ') || 'none'})`);
  if (env.SEED_DEMO_DATA !== 'false') fail('the image loads demo tenants: set SEED_DEMO_DATA=false');
  const app = path.join(stage.root, stage.workdir);
  if (fs.existsSync(path.join(app, 'node_modules', 'typescript')))
    fail('the image keeps its devDependencies (typescript)');
  say(
    `static checks passed: ${stage.image}, USER ${stage.user}, VOLUME ${stage.volumes.join(' ')}, HEALTHCHECK, no devDependencies, node ${nodeFlags(stage.cmd)}`,
  );
}

/** Runs the HEALTHCHECK command until it passes (the image's start period). */
async function healthy(stage, env, engine, ms) {
  const until = Date.now() + ms;
  for (;;) {
    if (engine.exitCode !== null) fail(`the engine exited with ${engine.exitCode} before it was healthy`);
    const r = spawnSync(stage.health[0], stage.health.slice(1), { cwd: path.join(stage.root, stage.workdir), env });
    if (r.status === 0) return;
    if (Date.now() > until) fail(`HEALTHCHECK did not pass within ${ms / 1000} s`);
    await sleep(250);
  }
}

async function graphql(base, secret, query) {
  const res = await globalThis.fetch(`${base}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hasura-admin-secret': secret },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  if (body.errors) fail(`${query}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** Starts the CMD, waits for the HEALTHCHECK, checks what a running container should do, stops it. */
async function run(stage, env) {
  const cwd = path.join(stage.root, stage.workdir);
  let log = '';
  const engine = spawn(stage.cmd[0], stage.cmd.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  engine.stdout.on('data', (c) => (log += c));
  engine.stderr.on('data', (c) => (log += c));
  const t0 = Date.now();
  try {
    await healthy(stage, env, engine, 60_000);
    say(`CMD ${stage.cmd.join(' ')}: HEALTHCHECK passed after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const base = `http://127.0.0.1:${env.PORT}`;
    const ready = await globalThis.fetch(`${base}/readyz`);
    if (ready.status !== 200) fail(`/readyz answered ${ready.status}`);
    const before = await graphql(base, env.ADMIN_SECRET, '{ tenant { name } }');
    if (before.tenant.length !== 0) fail(`demo tenants were loaded: ${before.tenant.map((t) => t.name).join(', ')}`);
    // docker exec <container> npm run admin -- create-tenant ...: the container's environment, its folder.
    const admin = spawnSync('npm', ['run', '--silent', 'admin', '--', 'create-tenant', '--name', 'Image Check'], {
      cwd,
      env,
      encoding: 'utf8',
    });
    if (admin.status !== 0) fail(`npm run admin: exit ${admin.status}\n${admin.stdout}${admin.stderr}`);
    const after = await graphql(base, env.ADMIN_SECRET, '{ tenant { name } }');
    if (!after.tenant.some((t) => t.name === 'Image Check')) fail('the tenant made by npm run admin is not visible');
    say(`npm run admin through the running engine: ${admin.stdout.trim()}`);
  } catch (err) {
    process.stdout.write(`--- engine log ---\n${log}\n`);
    throw err;
  } finally {
    if (engine.exitCode === null) {
      const exited = new Promise((res) => engine.once('exit', (code) => res(code)));
      engine.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) fail(`the engine exited with ${code} on SIGTERM`);
      say('SIGTERM: the engine exited 0');
    }
  }
}

async function main() {
  const instructions = parseDockerfile(fs.readFileSync(path.join(REPO, 'Dockerfile'), 'utf8'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'image-check-'));
  try {
    const { stage, mapPaths } = build(instructions, tmp);
    const secret = () => randomBytes(32).toString('base64url');
    const env = {
      PATH: process.env.PATH,
      HOME: tmp,
      npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'),
      ...mapEnv(stage.env, mapPaths),
      PORT: String(await freePort()),
      ADMIN_SECRET: secret(),
      NEXTAUTH_SECRET: secret(),
    };
    staticChecks(stage, instructions, stage.env);
    await run(stage, env);
    say('the image steps work');
  } finally {
    // Removing two stages' node_modules takes a while: in the background, after the verdict.
    if (process.env.KEEP) say(`kept ${tmp}`);
    else spawn('rm', ['-rf', tmp], { detached: true, stdio: 'ignore' }).unref();
  }
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`image-check failed: ${err.message}\n`);
    process.exit(1);
  });
}
