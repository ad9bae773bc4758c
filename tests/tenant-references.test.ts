import { randomUUID } from 'node:crypto';
import { DEMO } from '../demo/demo-data';
import { readCatalog, type CatalogForeignKey, type CatalogTable } from '../engine/compile/model/catalog';
import type { Column, Table } from '../engine/compile/model/model-types';
import type { Database } from '../engine/core/db/database';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * A tenant role's writes may point only at its own tenant's rows: with the platform's metadata and
 * the demo data, every foreign key of every table that tenant_admin may set, to a table that belongs
 * to a tenant, is tried with a Globex row (refused, nothing written) and an Acme row (accepted), by
 * insert and by update. The tables and keys come from the database catalog, not from a list here;
 * the rows they point at are made with SQL written here.
 */
const acme = DEMO.tenants.acme.id;
const globex = DEMO.tenants.globex.id;
const ROLE = 'tenant_admin';

type Row = Record<string, unknown>;

interface Case {
  table: Table;
  fk: CatalogForeignKey;
  target: Table;
  insert: boolean;
  update: boolean;
}

let server: TestServer;
let db: Database;
let catalog: Map<string, CatalogTable>;
let tables: Map<string, Table>;
let counter = 0;
/** The SQL of each plan the engine compiled (LOG_LEVEL=debug's `compiled` lines). */
const compiled: string[] = [];

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
const tableSql = (t: Table) => `${q(t.schema)}.${q(t.name)}`;

/** The tenant column of a table: the one with a foreign key to tenant(id); the tenant table's own id. */
function ownerOf(t: Table): string | undefined {
  if (t.name === 'tenant') return 'id';
  return catalog
    .get(`${t.schema}.${t.name}`)!
    .foreignKeys.find((f) => f.refTable === 'tenant' && f.columns.length === 1)?.columns[0];
}

/** A value of a column's type that no other row has: text, numbers, times, json, arrays, enums. */
function valueFor(c: Column): unknown {
  counter += 1;
  if (c.enumValues?.length) return c.enumValues[0];
  const t = c.sqlType;
  if (t.endsWith('[]')) return '{}';
  if (t === 'uuid') return randomUUID();
  if (/^(integer|smallint|bigint|numeric|double precision|real)/.test(t)) return counter;
  if (t === 'boolean') return false;
  if (t.startsWith('timestamp')) return new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)).toISOString();
  if (t === 'date') return '2026-01-01';
  if (t === 'jsonb' || t === 'json') return '{}';
  return `tenant-ref-${counter}`;
}

/** A new row of `t` owned by `tenant`, written with SQL; its columns' values, as text, are returned. */
async function newRow(t: Table, tenant: string, depth = 0): Promise<Row> {
  const owner = ownerOf(t);
  if (t.name === 'tenant') return { id: tenant };
  if (!owner) {
    const [row] = await db.query(`SELECT * FROM ${tableSql(t)} LIMIT 1`);
    if (row) return row;
  }
  if (depth > 4) throw new Error(`no row of ${t.name} could be made`);
  const values = new Map<string, unknown>();
  for (const fk of catalog.get(`${t.schema}.${t.name}`)!.foreignKeys) {
    const needed = fk.columns.some((c) => !t.columnByName.get(c)!.nullable && !t.columnByName.get(c)!.hasDefault);
    if (!needed || fk.columns.includes(owner ?? '')) continue;
    const ref = await newRow(tables.get(`${fk.refSchema}.${fk.refTable}`)!, tenant, depth + 1);
    fk.columns.forEach((c, i) => values.set(c, ref[fk.refColumns[i]]));
  }
  for (const c of t.columns)
    if (!c.nullable && !c.hasDefault && !c.generated && !values.has(c.name)) values.set(c.name, valueFor(c));
  if (owner) values.set(owner, tenant);
  const cols = [...values.keys()];
  const [row] = await db.query(
    `INSERT INTO ${tableSql(t)} (${cols.map(q).join(', ')}) VALUES (${cols
      .map((c, i) => `$${i + 1}::text::${t.columnByName.get(c)!.sqlType}`)
      .join(', ')}) RETURNING *`,
    cols.map((c) => String(values.get(c))),
  );
  return row;
}

/** The GraphQL input of a new row of the case's table, pointing through `fk` at `ref`. */
async function inputFor(c: Case, ref: Row): Promise<Row> {
  const perm = c.table.permissions.get(ROLE)!.insert!;
  const out: Row = {};
  const fks = catalog.get(`${c.table.schema}.${c.table.name}`)!.foreignKeys;
  for (const fk of fks) {
    if (fk === c.fk || !fk.columns.every((col) => perm.columns.has(col) && !perm.set.has(col))) continue;
    if (fk.columns.every((col) => c.table.columnByName.get(col)!.nullable)) continue;
    const row = await newRow(tables.get(`${fk.refSchema}.${fk.refTable}`)!, acme);
    fk.columns.forEach((col, i) => (out[c.table.columnByName.get(col)!.gqlName] = row[fk.refColumns[i]]));
  }
  for (const col of c.table.columns) {
    const open = perm.columns.has(col.name) && !perm.set.has(col.name);
    if (open && !col.nullable && !col.hasDefault && !(col.gqlName in out)) out[col.gqlName] = valueFor(col);
  }
  c.fk.columns.forEach((col, i) => (out[c.table.columnByName.get(col)!.gqlName] = ref[c.fk.refColumns[i]]));
  return out;
}

/** A jsonb column's `{}` went into SQL as text; into GraphQL it goes as an object, an array as a list. */
function graphqlValues(t: Table, input: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(input)) {
    const col = t.columnByGql.get(k)!;
    out[k] = v === '{}' ? (col.sqlType.endsWith('[]') ? [] : {}) : v;
  }
  return out;
}

const countRows = async (t: Table) => Number((await db.query(`SELECT count(*)::int AS n FROM ${tableSql(t)}`))[0].n);

async function insert(c: Case, input: Row) {
  const field = c.table.rootFields.insert_one!;
  const pk = c.table.primaryKey.map((k) => k.gqlName).join(' ') || '__typename';
  return server.gql(
    `mutation($o: ${c.table.gqlName}_insert_input!) { row: ${field}(object: $o) { ${pk} } }`,
    { o: graphqlValues(c.table, input) },
    as(ROLE, acme),
  );
}

async function update(c: Case, key: Row, ref: Row) {
  const field = c.table.rootFields.update!;
  const where = Object.fromEntries(Object.entries(key).map(([k, v]) => [k, { _eq: v }]));
  const set = Object.fromEntries(
    c.fk.columns.map((col, i) => [c.table.columnByName.get(col)!.gqlName, ref[c.fk.refColumns[i]]]),
  );
  return server.gql(
    `mutation($w: ${c.table.gqlName}_bool_exp!, $s: ${c.table.gqlName}_set_input) { r: ${field}(where: $w, _set: $s) { affected_rows } }`,
    { w: where, s: set },
    as(ROLE, acme),
  );
}

/** The foreign-key columns of a row, as SQL reads them back (text). */
async function pointsAt(c: Case, key: Row): Promise<string | undefined> {
  const cond = Object.keys(key).map((k, i) => `${q(c.table.columnByGql.get(k)!.name)}::text = $${i + 1}`);
  const [row] = await db.query(
    `SELECT ${c.fk.columns.map((col) => `${q(col)}::text AS ${q(col)}`).join(', ')} FROM ${tableSql(c.table)} WHERE ${cond.join(' AND ')}`,
    Object.values(key).map(String),
  );
  return row && c.fk.columns.map((col) => String(row[col])).join();
}

/** Every (table, foreign key to a tenant-owned table) whose key tenant_admin may set by insert or update. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const table of tables.values()) {
    const perms = table.permissions.get(ROLE);
    if (!perms?.insert && !perms?.update) continue;
    for (const fk of catalog.get(`${table.schema}.${table.name}`)!.foreignKeys) {
      const target = tables.get(`${fk.refSchema}.${fk.refTable}`);
      if (!target || !ownerOf(target)) continue;
      const open = (p?: { columns: Set<string>; set: Map<string, unknown> }) =>
        !!p && fk.columns.every((c) => p.columns.has(c) && !p.set.has(c));
      const insert = open(perms.insert);
      const update = open(perms.update) && table.primaryKey.length > 0;
      if (insert || update) out.push({ table, fk, target, insert, update });
    }
  }
  return out;
}

/** One case: the problems found, as sentences (none when it holds). */
async function check(c: Case): Promise<string[]> {
  const name = `${c.table.name}.${c.fk.columns.join(',')} -> ${c.target.name}`;
  const problems: string[] = [];
  const theirs = await newRow(c.target, globex);
  const ours = await newRow(c.target, acme);
  let key: Row | undefined;
  if (c.insert) {
    const before = await countRows(c.table);
    const refused = await insert(c, await inputFor(c, theirs));
    if (refused.body.errors?.[0]?.extensions?.code !== 'permission-error')
      problems.push(`${name}: insert pointing at Globex answered ${refused.text}`);
    if ((await countRows(c.table)) !== before) problems.push(`${name}: the refused insert wrote a row`);
    const accepted = await insert(c, await inputFor(c, ours));
    if (accepted.body.errors) problems.push(`${name}: insert pointing at Acme answered ${accepted.text}`);
    else key = accepted.body.data.row;
  }
  if (c.update && !key) {
    const keyText = c.table.primaryKey.map((k) => `${q(k.name)}::text AS ${q(k.gqlName)}`).join(', ');
    const [row] = await db.query(
      `SELECT ${keyText} FROM ${tableSql(c.table)} WHERE ${q(ownerOf(c.table)!)}::text = $1 LIMIT 1`,
      [acme],
    );
    if (row) key = row;
    else problems.push(`${name}: no Acme row to update`);
  }
  if (c.update && key) {
    const was = await pointsAt(c, key);
    const refused = await update(c, key, theirs);
    if (refused.body.errors?.[0]?.extensions?.code !== 'permission-error')
      problems.push(`${name}: update pointing at Globex answered ${refused.text}`);
    if (was === undefined) problems.push(`${name}: the row to update was not found`);
    if ((await pointsAt(c, key)) !== was) problems.push(`${name}: the refused update changed the row`);
    const accepted = await update(c, key, ours);
    if (accepted.body.data?.r?.affected_rows !== 1)
      problems.push(`${name}: update pointing at Acme answered ${accepted.text}`);
  }
  return problems;
}

beforeAll(async () => {
  server = await startTestServer({
    env: { LOG_LEVEL: 'debug' },
    log: (entry) => {
      if (entry.msg === 'compiled') compiled.push((entry.sql as string[]).join('\n'));
    },
  });
  db = server.started.db;
  catalog = await readCatalog(db, ['public']);
  tables = new Map(server.started.engine.model.tables.map((t) => [`${t.schema}.${t.name}`, t]));
});

afterAll(async () => {
  await server?.close();
});

describe(`tenant_admin writes point only at the tenant's rows (${backendName})`, () => {
  test('every foreign key to a tenant-owned table, by insert and by update', async () => {
    const all = cases();
    // The platform's tables: spends -> cloud_accounts is the case that was reported; dozens like it.
    expect(all.some((c) => c.table.name === 'spends' && c.fk.columns[0] === 'cloud_account')).toBe(true);
    expect(all.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const c of all) problems.push(...(await check(c)));
    expect(problems).toEqual([]);
  }, 600_000);

  /** An id of one of the tenant's rows, read with SQL. */
  const idOf = async (table: string, tenantColumn: string, tenant: string) =>
    String(
      (await db.query(`SELECT id::text AS id FROM ${table} WHERE ${tenantColumn} = $1::uuid LIMIT 1`, [tenant]))[0].id,
    );
  const ACCOUNT = `{account_name: "nested", account_type: "member", account_env: prod, status: active,
    created_by: "${DEMO.tenants.acme.users.admin.id}", updated_by: "${DEMO.tenants.acme.users.admin.id}"}`;

  test('a key to the tenant table is checked by its column; a key to a tenant-owned row reads that row', async () => {
    const account = DEMO.tenants.acme.cloudAccounts.aws;
    const theirs = DEMO.tenants.globex.cloudAccounts.aws;
    const insert = (a: string) =>
      server.gql(
        `mutation($o: [auto_playbook_insert_input!]!) { r: insert_auto_playbook(objects: $o) { affected_rows returning { tenant_id } } }`,
        { o: [1, 2].map((i) => ({ account_id: a, name: `tenant-check-${i}`, status: 'DRAFT' })) },
        as(ROLE, acme),
      );
    compiled.length = 0;
    const accepted = await insert(account);
    expect(accepted.body.data.r).toEqual({ affected_rows: 2, returning: [{ tenant_id: acme }, { tenant_id: acme }] });
    // tenant_id's key names the tenant itself: the foreign key guarantees the row, so no lookup of it.
    const statement = compiled.find((c) => c.includes('INSERT INTO "public"."auto_playbook"'))!;
    expect(statement).toContain('FROM "public"."cloud_accounts"');
    expect(statement).not.toContain('FROM "public"."tenant"');
    const refused = await insert(theirs);
    expect(refused.body.errors[0].extensions.code).toBe('permission-error');
  });

  test('a nested insert: the rows written below a new account may not point at Globex', async () => {
    const before = await countRows(tables.get('public.cloud_accounts')!);
    const mutation = `mutation($r: uuid!) { row: insert_cloud_accounts_one(object: {${ACCOUNT.slice(1, -1)},
      spends: {data: [{amount: 1, date: "2026-01-01", cloud_resource_id: $r}]}}) { id spends { cloud_resource_id } } }`;
    const refused = await server.gql(mutation, { r: await idOf('cloud_resourses', 'tenant', globex) }, as(ROLE, acme));
    expect(refused.body.errors[0].extensions.code).toBe('permission-error');
    expect(await countRows(tables.get('public.cloud_accounts')!)).toBe(before);
    const ours = await idOf('cloud_resourses', 'tenant', acme);
    const accepted = await server.gql(mutation, { r: ours }, as(ROLE, acme));
    expect(accepted.body.data.row.spends).toEqual([{ cloud_resource_id: ours }]);
  });

  test('a nested insert: a spend may point at the Acme account written with it', async () => {
    const res = await server.gql(
      `mutation { row: insert_spends_one(object: {amount: 2, date: "2026-01-02",
         cloudAccountByCloudAccount: {data: ${ACCOUNT}}}) { cloud_account tenant } }`,
      {},
      as(ROLE, acme),
    );
    expect(res.body.data.row.tenant).toBe(acme);
    const [row] = await db.query('SELECT tenant::text AS tenant FROM cloud_accounts WHERE id = $1::uuid', [
      res.body.data.row.cloud_account,
    ]);
    expect(row.tenant).toBe(acme);
  });

  test('update_by_pk and update_many refuse a Globex account and leave the row as it was', async () => {
    const spend = await idOf('spends', 'tenant', acme);
    const theirs = await idOf('cloud_accounts', 'tenant', globex);
    const account = async () =>
      String((await db.query('SELECT cloud_account::text AS a FROM spends WHERE id = $1::uuid', [spend]))[0].a);
    const was = await account();
    const byPk = await server.gql(
      'mutation($id: uuid!, $a: uuid!) { update_spends_by_pk(pk_columns: {id: $id}, _set: {cloud_account: $a}) { id } }',
      { id: spend, a: theirs },
      as(ROLE, acme),
    );
    expect(byPk.body.errors[0].extensions.code).toBe('permission-error');
    const many = await server.gql(
      `mutation($id: uuid!, $a: uuid!, $b: uuid!) { update_spends_many(updates: [
         {where: {id: {_eq: $id}}, _set: {cloud_account: $b}}, {where: {id: {_eq: $id}}, _set: {cloud_account: $a}}]) { affected_rows } }`,
      { id: spend, a: theirs, b: was },
      as(ROLE, acme),
    );
    expect(many.body.errors[0].extensions.code).toBe('permission-error');
    expect(await account()).toBe(was);
    const back = await server.gql(
      'mutation($id: uuid!, $a: uuid) { update_spends_by_pk(pk_columns: {id: $id}, _set: {cloud_resource_id: $a}) { cloud_resource_id } }',
      { id: spend, a: null },
      as(ROLE, acme),
    );
    expect(back.body.data.update_spends_by_pk).toEqual({ cloud_resource_id: null });
  });

  test('an update that leaves a key as it is passes over a row an import linked across tenants', async () => {
    const theirs = await idOf('cloud_accounts', 'tenant', globex);
    const [legacy] = await db.query(
      `INSERT INTO spends (tenant, cloud_account, date, amount) VALUES ($1::uuid, $2::uuid, '2026-01-03', 3) RETURNING id::text AS id`,
      [acme, theirs],
    );
    const set = (s: string, v: Record<string, unknown>) =>
      server.gql(
        `mutation($id: uuid!, $s: spends_set_input!) { update_spends_by_pk(pk_columns: {id: $id}, _set: $s) { ${s} } }`,
        { id: legacy.id, s: v },
        as(ROLE, acme),
      );
    expect((await set('unit', { unit: 'EUR' })).body.data.update_spends_by_pk).toEqual({ unit: 'EUR' });
    const again = await set('cloud_account', { cloud_account: theirs });
    expect(again.body.errors[0].extensions.code).toBe('permission-error');
    const ours = await idOf('cloud_accounts', 'tenant', acme);
    expect((await set('cloud_account', { cloud_account: ours })).body.data.update_spends_by_pk).toEqual({
      cloud_account: ours,
    });
  });

  test('rows of one insert may point at each other (a key to the same table), not at Globex rows', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const rule = (id: string, override?: string) =>
      `{id: "${id}", rule_type: "suppress", action: "drop"${override ? `, override_rule_id: "${override}"` : ''}}`;
    const both = await server.gql(
      `mutation { insert_event_triage_rules(objects: [${rule(a)}, ${rule(b, a)}]) { affected_rows returning { id override_rule_id } } }`,
      {},
      as(ROLE, acme),
    );
    expect(both.body.data.insert_event_triage_rules).toEqual({
      affected_rows: 2,
      returning: [
        { id: a, override_rule_id: null },
        { id: b, override_rule_id: a },
      ],
    });
    const [theirs] = await db.query(
      'INSERT INTO event_triage_rules (tenant_id, rule_type, action) VALUES ($1::uuid, $2::text, $2::text) RETURNING id::text AS id',
      [globex, 'x'],
    );
    const c = randomUUID();
    const refused = await server.gql(
      `mutation { insert_event_triage_rules(objects: [${rule(c)}, ${rule(randomUUID(), String(theirs.id))}]) { affected_rows } }`,
      {},
      as(ROLE, acme),
    );
    expect(refused.body.errors[0].extensions.code).toBe('permission-error');
    expect(await db.query('SELECT 1 FROM event_triage_rules WHERE id = $1::uuid', [c])).toEqual([]);
  });
});
