import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadMetadata } from '../engine/compile/model/load';
import { keptFileOf, loadMetadataKept } from '../engine/compile/model/metadata-cache';

/**
 * The metadata directory kept between starts (engine/compile/model/metadata-cache.ts): the kept copy
 * is what a fresh read gives, it is the one read while nothing changed, and any change to a file is
 * seen at the next start. No database: the loader reads files only.
 */
const PLATFORM = path.join(__dirname, '..', 'metadata');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metadata-kept-'));
  fs.cpSync(PLATFORM, dir, { recursive: true });
});
afterEach(() => {
  fs.rmSync(keptFileOf(dir), { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

const tablesFile = () => path.join(dir, 'databases', 'default', 'tables', 'public_tenant.yaml');

test('the kept copy equals a fresh read of the platform metadata, warnings and table files included', () => {
  const first = loadMetadataKept(dir);
  expect(fs.existsSync(keptFileOf(dir))).toBe(true);
  const second = loadMetadataKept(dir);
  expect(second).toEqual(loadMetadata(dir));
  expect(second).toEqual(first);
  expect(second.tableFiles.get('public.tenant')).toBe(tablesFile());
});

test('while nothing changed, the kept copy is what is read; a changed file is read anew', () => {
  loadMetadataKept(dir);
  // Shown to be read: a mark put into the kept copy comes back.
  const kept = JSON.parse(fs.readFileSync(keptFileOf(dir), 'utf8'));
  kept.metadata.actionsSdl += '\n# from the kept copy';
  fs.writeFileSync(keptFileOf(dir), JSON.stringify(kept));
  expect(loadMetadataKept(dir).actionsSdl).toMatch(/# from the kept copy$/);
  // A file changed, even by one comment: the directory is read again and kept anew.
  fs.appendFileSync(tablesFile(), '\n# changed\n');
  expect(loadMetadataKept(dir).actionsSdl).not.toMatch(/from the kept copy/);
  expect(JSON.parse(fs.readFileSync(keptFileOf(dir), 'utf8')).metadata.actionsSdl).not.toMatch(/kept copy/);
});

test('a file added or removed is a change too', () => {
  const before = loadMetadataKept(dir);
  fs.writeFileSync(
    path.join(dir, 'cron_triggers.yaml'),
    '- name: nightly\n  webhook: http://x\n  schedule: "0 0 * * *"\n',
  );
  const after = loadMetadataKept(dir);
  expect(after.warnings.length).toBe(before.warnings.length + 1);
  fs.rmSync(path.join(dir, 'cron_triggers.yaml'));
  expect(loadMetadataKept(dir).warnings).toEqual(before.warnings);
});

test('a directory that does not load is never kept: its error comes every time', () => {
  fs.writeFileSync(tablesFile(), 'table: [unclosed\n');
  for (let i = 0; i < 2; i++) expect(() => loadMetadataKept(dir)).toThrow(/public_tenant\.yaml.*invalid YAML/);
  expect(fs.existsSync(keptFileOf(dir))).toBe(false);
  expect(() => loadMetadataKept(path.join(dir, 'nowhere'))).toThrow(/metadata directory not found/);
});
