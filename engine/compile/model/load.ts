import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type * as Yaml from 'yaml';
import { onFirstUse } from '../../core/on-first-use';
import type {
  ActionJson,
  Located,
  LogicalModelJson,
  MetadataJson,
  NativeQueryJson,
  SourceJson,
  TableJson,
} from './metadata-types';
import { actionsSchema, logicalModelSchema, nativeQuerySchema, sourcesSchema, tableSchema } from './metadata-schema';

/** A metadata problem, always naming the file and the place inside it. */
export class MetadataError extends Error {
  constructor(
    readonly file: string,
    readonly where: string,
    problem: string,
  ) {
    super(`metadata ${file}${where ? ` at ${where}` : ''}: ${problem}`);
  }
}

/**
 * The YAML parser and the JSON schema compiler, loaded on first use: a start that finds its metadata
 * kept (metadata-cache.ts) needs neither.
 */
const yaml = onFirstUse<typeof Yaml>('yaml');
const ajvModule = onFirstUse<typeof AjvModule>('ajv');

/** The metadata's JSON schemas, compiled on first use: a start that finds its metadata kept (metadata-cache.ts) never compiles them. */
type Validators = Record<'table' | 'sources' | 'actions' | 'logicalModel' | 'nativeQuery', ValidateFunction>;
let compiled: Validators | undefined;
function validators(): Validators {
  if (compiled) return compiled;
  const ajv = new (ajvModule().default)({ allErrors: false, strict: false });
  compiled = {
    table: ajv.compile(tableSchema),
    sources: ajv.compile(sourcesSchema),
    actions: ajv.compile(actionsSchema),
    logicalModel: ajv.compile(logicalModelSchema),
    nativeQuery: ajv.compile(nativeQuerySchema),
  };
  return compiled;
}

/** `where` and `key` joined as a path inside a file: `[0].code`, or `code` at the file's top. */
export const placeIn = (where: string, key: string) => (where ? `${where}.${key}` : key);

function describe(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties')
    return `unknown key "${(err.params as { additionalProperty: string }).additionalProperty}"`;
  if (err.keyword === 'required') return `missing key "${(err.params as { missingProperty: string }).missingProperty}"`;
  if (err.keyword === 'enum')
    return `${err.message}: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return err.message ?? 'invalid';
}

/** ajv's `/select_permissions/0/permission` as `select_permissions[0].permission`, after `root`. */
function jsonPath(root: string, pointer: string): string {
  let out = root;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

function check<T>(validate: ValidateFunction, value: unknown, file: string, root: string): T {
  if (!validate(value)) {
    const err = validate.errors![0];
    throw new MetadataError(file, jsonPath(root, err.instancePath), describe(err));
  }
  return value as T;
}

const INCLUDE = /^!include\s+(.+)$/;

/** Parses one YAML file; a syntax error names the file, and YAML's message the line and column. */
function parseYamlFile(file: string): unknown {
  try {
    return yaml().parse(fs.readFileSync(file, 'utf8'), {
      customTags: [{ tag: '!include', resolve: (value: string) => `!include ${value}` }],
    });
  } catch (err) {
    throw new MetadataError(file, '', `invalid YAML: ${(err as Error).message}`);
  }
}

/** The file an `!include` names, relative to the including file; a missing one is reported where it is included. */
function includedFile(from: string, where: string, name: string): string {
  const target = path.resolve(path.dirname(from), name);
  if (!fs.existsSync(target)) throw new MetadataError(from, where, `!include ${name}: file not found`);
  return target;
}

/**
 * Reads a YAML file, replacing every `"!include other.yaml"` string (Hasura's form) and every
 * `!include other.yaml` tag with the parsed content of that file, relative to the including file.
 */
export function readYaml(file: string, seen: string[] = []): unknown {
  if (seen.includes(file))
    throw new MetadataError(file, '', `circular !include through ${seen.map((f) => path.basename(f)).join(' -> ')}`);
  if (!fs.existsSync(file))
    throw new MetadataError(seen.length ? seen[seen.length - 1] : file, '', `file not found: ${file}`);
  const doc = parseYamlFile(file);
  const expand = (value: unknown, where: string): unknown => {
    if (typeof value === 'string') {
      const m = INCLUDE.exec(value.trim());
      return m ? readYaml(includedFile(file, where, m[1].trim()), [...seen, file]) : value;
    }
    if (Array.isArray(value)) return value.map((v, i) => expand(v, `${where}[${i}]`));
    return value;
  };
  // Includes are expanded where Hasura puts them: a value, or an element of a list.
  if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, expand(v, k)]));
  }
  return expand(doc, '');
}

/** Like readYaml, but table entries remember which file they came from, for error messages. */
function readTables(file: string, source: string): { table: TableJson; file: string }[] {
  const doc = parseYamlFile(file) ?? [];
  if (!Array.isArray(doc)) throw new MetadataError(file, '', 'expected a list of tables');
  return doc
    .map((entry: unknown, i: number) => {
      const m = typeof entry === 'string' ? INCLUDE.exec(entry.trim()) : null;
      const from = m ? includedFile(file, `[${i}]`, m[1].trim()) : file;
      const value = m ? readYaml(from, [file]) : entry;
      return { table: check<TableJson>(validators().table, value, from, m ? '' : `[${i}]`), file: from };
    })
    .map((t) => ({ ...t, source }));
}

/**
 * A source's `logical_models` or `native_queries`: a list in databases.yaml, or `!include file.yaml`
 * holding the list; each entry may itself be an `!include`. Entries remember their file and place.
 */
function readSourceList<T>(value: unknown, validate: ValidateFunction, from: string, where: string): Located<T>[] {
  if (value === undefined || value === null) return [];
  const inc = typeof value === 'string' ? INCLUDE.exec(value.trim()) : null;
  const file = inc ? includedFile(from, where, inc[1].trim()) : from;
  const base = inc ? '' : where;
  const list = inc ? (parseYamlFile(file) ?? []) : value;
  if (!Array.isArray(list)) throw new MetadataError(file, base, 'expected a list');
  return list.map((entry: unknown, i: number) => {
    const m = typeof entry === 'string' ? INCLUDE.exec(entry.trim()) : null;
    const entryFile = m ? includedFile(file, `${base}[${i}]`, m[1].trim()) : file;
    const at = m ? '' : `${base}[${i}]`;
    return {
      json: check<T>(validate, m ? readYaml(entryFile, [file]) : entry, entryFile, at),
      file: entryFile,
      where: at,
    };
  });
}

/** Something the metadata holds that the engine does not implement: told once at start-up, then left aside. */
export interface MetadataWarning {
  file: string;
  feature: string;
  message: string;
}

export interface LoadedMetadata extends MetadataJson {
  /** The file each table came from, by `schema.name`. */
  tableFiles: Map<string, string>;
  /** Logical models and native queries of every source, with where each was written. */
  logicalModels: Located<LogicalModelJson>[];
  nativeQueries: Located<NativeQueryJson>[];
  /** One per file and feature the engine leaves aside (cron triggers, remote schemas, ...). */
  warnings: MetadataWarning[];
}

/**
 * The files of `hasura metadata export` that hold features this engine does not implement. Empty (as
 * the export writes them when unused) they are accepted silently; holding something, they are
 * accepted with a warning naming the file and the feature.
 */
const UNIMPLEMENTED_FILES: [file: string, feature: string][] = [
  ['allow_list.yaml', 'the allow list of operations'],
  ['api_limits.yaml', 'API limits'],
  ['backend_configs.yaml', 'backend (data connector) configurations'],
  ['cron_triggers.yaml', 'cron triggers'],
  ['graphql_schema_introspection.yaml', 'introspection disabled for roles'],
  ['inherited_roles.yaml', 'inherited roles'],
  ['metrics_config.yaml', 'the metrics configuration'],
  ['network.yaml', 'network settings'],
  ['opentelemetry.yaml', 'OpenTelemetry export'],
  ['query_collections.yaml', 'query collections'],
  ['remote_schemas.yaml', 'remote schemas'],
  ['rest_endpoints.yaml', 'REST endpoints'],
];
/** The same, for keys of a table file and of a source in databases.yaml. */
const UNIMPLEMENTED_TABLE_KEYS = {
  event_triggers: 'event triggers',
  computed_fields: 'computed fields',
  remote_relationships: 'remote relationships',
} as const;

/** Nothing but nulls, empty strings, empty lists and objects of those: what an export writes for an unused feature. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isEmpty);
  return false;
}

/** Collects warnings, one per file and feature. */
class Warnings {
  readonly list: MetadataWarning[] = [];
  add(file: string, feature: string, value: unknown): void {
    if (isEmpty(value) || this.list.some((w) => w.file === file && w.feature === feature)) return;
    const message = `metadata ${file}: holds ${feature}, which this engine does not implement; left aside`;
    this.list.push({ file, feature, message });
  }
}

/** A source's tables: `!include tables.yaml` (Hasura's export) or a list written in databases.yaml. */
function readSourceTables(src: SourceJson, s: number, databasesFile: string): { table: TableJson; file: string }[] {
  const value = src.tables as unknown;
  const inc = typeof value === 'string' ? INCLUDE.exec(value.trim()) : null;
  if (inc) return readTables(includedFile(databasesFile, `[${s}].tables`, inc[1].trim()), src.name);
  if (!Array.isArray(value)) return [];
  return value.map((t, i) => ({
    table: check<TableJson>(validators().table, t, databasesFile, `[${src.name}].tables[${i}]`),
    file: databasesFile,
  }));
}

/** A source's tracked functions (`functions: !include default/functions/functions.yaml`), which the engine leaves aside. */
function warnOfFunctions(src: SourceJson, s: number, from: string, warnings: Warnings) {
  const inc = typeof src.functions === 'string' ? INCLUDE.exec(src.functions.trim()) : null;
  const file = inc ? includedFile(from, `[${s}].functions`, inc[1].trim()) : from;
  warnings.add(file, 'tracked SQL functions', inc ? readYaml(file, [from]) : src.functions);
}

interface SourcesRead {
  sources: SourceJson[];
  tableFiles: Map<string, string>;
  logicalModels: Located<LogicalModelJson>[];
  nativeQueries: Located<NativeQueryJson>[];
}

/** databases.yaml and what it includes: tables, logical models and native queries of each source. */
function readSources(databasesFile: string, warnings: Warnings): SourcesRead {
  const read: SourcesRead = { sources: [], tableFiles: new Map(), logicalModels: [], nativeQueries: [] };
  if (!fs.existsSync(databasesFile)) return read;
  const raw = parseYamlFile(databasesFile) ?? [];
  check(validators().sources, raw, databasesFile, '');
  read.sources = (raw as SourceJson[]).map((src, s) => {
    const tables = readSourceTables(src, s, databasesFile);
    for (const t of tables) {
      read.tableFiles.set(`${t.table.table.schema ?? 'public'}.${t.table.table.name}`, t.file);
      for (const [k, feature] of Object.entries(UNIMPLEMENTED_TABLE_KEYS))
        warnings.add(t.file, feature, t.table[k as keyof typeof UNIMPLEMENTED_TABLE_KEYS]);
    }
    warnOfFunctions(src, s, databasesFile, warnings);
    warnings.add(databasesFile, 'source customization', src.customization);
    const where = (k: string) => `[${src.name}].${k}`;
    const models = readSourceList<LogicalModelJson>(
      src.logical_models,
      validators().logicalModel,
      databasesFile,
      where('logical_models'),
    );
    const queries = readSourceList<NativeQueryJson>(
      src.native_queries,
      validators().nativeQuery,
      databasesFile,
      where('native_queries'),
    );
    read.logicalModels.push(...models);
    read.nativeQueries.push(...queries);
    const [logical_models, native_queries] = [models.map((m) => m.json), queries.map((q) => q.json)];
    return { ...src, tables: tables.map((t) => t.table), logical_models, native_queries };
  });
  return read;
}

/** Loads and validates a metadata directory in Hasura's config v3 layout. */
export function loadMetadata(dir: string): LoadedMetadata {
  if (!fs.existsSync(dir)) throw new MetadataError(dir, '', 'metadata directory not found');
  const versionFile = path.join(dir, 'version.yaml');
  const version = fs.existsSync(versionFile)
    ? Number((readYaml(versionFile) as { version?: number })?.version ?? 3)
    : 3;
  if (version !== 3)
    throw new MetadataError(versionFile, 'version', `only config version 3 is supported, got ${version}`);
  const warnings = new Warnings();
  const { sources, tableFiles, logicalModels, nativeQueries } = readSources(
    path.join(dir, 'databases', 'databases.yaml'),
    warnings,
  );
  const { actions, actionsSdl } = readActions(dir);
  for (const [name, feature] of UNIMPLEMENTED_FILES) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) warnings.add(file, feature, readYaml(file));
  }
  return {
    version,
    sources,
    actions,
    actionsSdl,
    tableFiles,
    logicalModels,
    nativeQueries,
    warnings: warnings.list,
  };
}

/**
 * Actions: `actions.yaml` and `actions.graphql`, then each family's pair in `actions/` (for example
 * `actions/ai.yaml` with `actions/ai.graphql`), in name order. The SDL files are joined into one
 * document, so a family file may use the shared types of `actions.graphql` and `extend type Query`.
 */
function readActions(dir: string): { actions: ActionJson[]; actionsSdl: string } {
  const familyDir = path.join(dir, 'actions');
  const family = fs.existsSync(familyDir) ? fs.readdirSync(familyDir).sort() : [];
  const yamlFiles = [
    path.join(dir, 'actions.yaml'),
    ...family.filter((f) => f.endsWith('.yaml')).map((f) => path.join(familyDir, f)),
  ];
  const sdlFiles = [
    path.join(dir, 'actions.graphql'),
    ...family.filter((f) => f.endsWith('.graphql')).map((f) => path.join(familyDir, f)),
  ];
  const actions: ActionJson[] = [];
  for (const file of yamlFiles.filter((f) => fs.existsSync(f))) {
    const raw = readYaml(file) ?? {};
    for (const a of check<{ actions?: ActionJson[] }>(validators().actions, raw, file, '').actions ?? []) {
      if (actions.some((b) => b.name === a.name))
        throw new MetadataError(file, a.name, `action ${a.name} is declared twice`);
      actions.push(a);
    }
  }
  // An empty actions.graphql (what Hasura's export writes when there are no actions) adds nothing.
  const actionsSdl = sdlFiles
    .filter((f) => fs.existsSync(f))
    .map((f) => ({ f, sdl: fs.readFileSync(f, 'utf8') }))
    .filter(({ sdl }) => sdl.split('\n').some((line) => line.trim() && !line.trim().startsWith('#')))
    .map(({ f, sdl }) => `# ${path.basename(f)}\n${sdl}`)
    .join('\n');
  return { actions, actionsSdl };
}
