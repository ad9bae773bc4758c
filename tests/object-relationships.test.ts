import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { startTestServer, type TestServer } from './support/server';

/**
 * Object relationships, answered and planned: one onto the target's primary key or a unique key is a
 * LEFT JOIN (PostgreSQL may hash it, as hand-written SQL does), one onto other columns stays a
 * subquery that takes the first match. Either way, every source row is answered once, and a target
 * row the role may not see is null.
 *
 * The fixture's metadata, copied, plus: countries.an_author (an object relationship onto
 * authors.country_code, which is no key) and a role `viewer` that sees every author and every country
 * but France.
 */
let t: TestServer;
let metadataDir: string;
const compiled: string[][] = [];
const viewer = { 'x-hasura-role': 'viewer' };

function editYaml(file: string, edit: (doc: Record<string, unknown[]>) => void): void {
  const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown[]>;
  edit(doc);
  fs.writeFileSync(file, stringify(doc));
}

beforeAll(async () => {
  metadataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'object-rel-metadata-'));
  fs.cpSync(path.resolve(__dirname, 'fixture/metadata'), metadataDir, { recursive: true });
  const tables = path.join(metadataDir, 'databases/default/tables');
  const seeAll = { role: 'viewer', permission: { columns: '*', filter: {} } };
  editYaml(path.join(tables, 'public_countries.yaml'), (doc) => {
    doc.object_relationships = [
      {
        name: 'an_author',
        using: { manual_configuration: { remote_table: 'authors', column_mapping: { code: 'country_code' } } },
      },
    ];
    doc.select_permissions.push({ role: 'viewer', permission: { columns: '*', filter: { code: { _neq: 'FR' } } } });
  });
  editYaml(path.join(tables, 'public_authors.yaml'), (doc) => void doc.select_permissions.push(seeAll));
  editYaml(path.join(tables, 'public_books.yaml'), (doc) => void doc.select_permissions.push(seeAll));
  t = await startTestServer({
    seed: false,
    env: { METADATA_DIR: metadataDir, MIGRATIONS_DIR: path.resolve(__dirname, 'fixture/sql') },
    log: (entry) => {
      if (entry.msg === 'compiled') compiled.push(entry.sql as string[]);
    },
  });
});

afterAll(async () => {
  await t?.close();
  fs.rmSync(metadataDir, { recursive: true, force: true });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Join Type'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/** How `table` is reached in a plan: the node types and parent relationships above each of its scans. */
function routesTo(plan: PlanNode, table: string, above: string[] = []): string[][] {
  const here = [...above, `${plan['Node Type']}${plan['Join Type'] ? ` ${plan['Join Type']}` : ''}`];
  if (plan['Parent Relationship'] === 'SubPlan') here.push('SubPlan');
  const own = plan['Relation Name'] === table ? [here] : [];
  return [...own, ...(plan.Plans ?? []).flatMap((p) => routesTo(p, table, here))];
}

/** The answer to `query`, and how the plan of its one statement reaches `table`. */
async function answerAndRoutes(query: string, table: string, headers: Record<string, string> = {}) {
  compiled.length = 0;
  const r = await t.gql(query, {}, headers);
  expect(r.body.errors).toBeUndefined();
  expect(compiled).toHaveLength(1);
  const [statement] = compiled[0];
  // The generic plan (every value a parameter), so that no NULL given for a value folds a scan away.
  const count = Math.max(0, ...[...statement.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  const values = Array.from({ length: count }, (_, i) => (i === count - 1 ? '1000000' : 'NULL'));
  const row = await t.started.db.transaction(async (tx) => {
    await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await tx.query(`PREPARE shape_probe AS ${statement}`);
    const [explained] = await tx.query(`EXPLAIN (FORMAT JSON) EXECUTE shape_probe(${values.join(', ')})`);
    await tx.query('DEALLOCATE shape_probe');
    return explained;
  });
  const plan = (row['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
  return { data: r.body.data, routes: routesTo(plan, table) };
}

/** Reached through an outer join (PostgreSQL may turn a LEFT JOIN round, hashing the smaller side), never a SubPlan. */
const joined = (routes: string[][]) =>
  routes.length > 0 && routes.every((r) => !r.includes('SubPlan') && r.some((n) => / (Left|Right)$/.test(n)));

describe('an object relationship onto a key is a LEFT JOIN', () => {
  test('onto a primary key (a foreign key), every book once with its author', async () => {
    const { data, routes } = await answerAndRoutes(
      '{ books(order_by: {title: asc}, limit: 3) { title author { name } } }',
      'authors',
    );
    expect(data).toEqual({
      books: [
        { title: 'Autumn Poems', author: { name: 'Dan Dubois' } },
        { title: 'Bright Nights', author: { name: 'Bob Brown' } },
        { title: 'Quiet Verses', author: { name: 'Bob Brown' } },
      ],
    });
    expect(joined(routes)).toBe(true);
  });

  test('onto a key through a manual relationship, and null where nothing matches', async () => {
    const { data, routes } = await answerAndRoutes(
      '{ authors(order_by: {id: asc}) { name country { name } } }',
      'countries',
    );
    expect(data).toEqual({
      authors: [
        { name: 'Alice Archer', country: { name: 'United Kingdom' } },
        { name: 'Bob Brown', country: { name: 'United States' } },
        { name: 'Carol Chen', country: { name: 'United States' } },
        { name: 'Dan Dubois', country: { name: 'France' } },
        { name: 'eve evans', country: null },
      ],
    });
    expect(joined(routes)).toBe(true);
  });

  test('a target row the role may not see is null, and its source row stays', async () => {
    const { data, routes } = await answerAndRoutes(
      '{ authors(order_by: {id: asc}) { name country { code } } }',
      'countries',
      viewer,
    );
    expect(data).toEqual({
      authors: [
        { name: 'Alice Archer', country: { code: 'GB' } },
        { name: 'Bob Brown', country: { code: 'US' } },
        { name: 'Carol Chen', country: { code: 'US' } },
        { name: 'Dan Dubois', country: null },
        { name: 'eve evans', country: null },
      ],
    });
    expect(joined(routes)).toBe(true);
  });

  test('joins chain through object relationships, in a by-pk answer and in aggregate nodes', async () => {
    const byPk = await answerAndRoutes(
      '{ books_by_pk(id: "66666666-6666-6666-6666-666666666666") { title author { name country { name } } } }',
      'countries',
    );
    expect(byPk.data).toEqual({
      books_by_pk: { title: 'Autumn Poems', author: { name: 'Dan Dubois', country: { name: 'France' } } },
    });
    expect(joined(byPk.routes)).toBe(true);
    const agg = await answerAndRoutes(
      `{ books_aggregate(where: {author: {name: {_eq: "Alice Archer"}}}, order_by: {title: asc}) {
          aggregate { count sum { pages } } nodes { title author { country { code } } } } }`,
      'countries',
    );
    expect(agg.data).toEqual({
      books_aggregate: {
        aggregate: { count: 3, sum: { pages: 680 } },
        nodes: [
          { title: 'Second Thoughts', author: { country: { code: 'GB' } } },
          { title: 'The First Light', author: { country: { code: 'GB' } } },
          { title: 'Third Time', author: { country: { code: 'GB' } } },
        ],
      },
    });
    expect(joined(agg.routes)).toBe(true);
  });
});

describe('ordering through an object relationship onto a key joins it too', () => {
  test("authors by their country's name, then by id; no country last", async () => {
    const { data, routes } = await answerAndRoutes(
      '{ authors(order_by: [{country: {name: desc}}, {id: asc}]) { name } }',
      'countries',
    );
    expect(data).toEqual({
      authors: [
        // desc puts NULLs first (as Hasura: desc is desc_nulls_first).
        { name: 'eve evans' },
        { name: 'Bob Brown' },
        { name: 'Carol Chen' },
        { name: 'Alice Archer' },
        { name: 'Dan Dubois' },
      ],
    });
    expect(joined(routes)).toBe(true);
  });

  test('through two relationships, with a filter the role puts on the target', async () => {
    const { data, routes } = await answerAndRoutes(
      '{ books(order_by: [{author: {country: {code: asc}}}, {title: asc}], limit: 4) { title } }',
      'countries',
      viewer,
    );
    // The viewer does not see France: Dan Dubois's book sorts as if he had no country (NULLs last).
    expect(data).toEqual({
      books: [
        { title: 'Second Thoughts' },
        { title: 'The First Light' },
        { title: 'Third Time' },
        { title: 'Bright Nights' },
      ],
    });
    expect(joined(routes)).toBe(true);
  });
});

describe('an object relationship onto columns that are no key stays a subquery', () => {
  test('each country once, with one of its authors or null', async () => {
    const { data, routes } = await answerAndRoutes(
      '{ countries(order_by: {code: asc}) { code an_author { country_code } } }',
      'authors',
    );
    expect(data).toEqual({
      countries: [
        { code: 'FR', an_author: { country_code: 'FR' } },
        { code: 'GB', an_author: { country_code: 'GB' } },
        { code: 'JP', an_author: null },
        // Two authors match; the relationship answers with one of them.
        { code: 'US', an_author: { country_code: 'US' } },
      ],
    });
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.every((r) => r.includes('SubPlan'))).toBe(true);
  });
});
