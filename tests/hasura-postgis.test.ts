import * as path from 'node:path';
import postgres from 'postgres';
import { OPERATORS } from '../engine/compile/model/operators';
import { createTestDatabase, onPostgres, type TestDatabase } from './support/database';
import { startTestServer, type TestServer } from './support/server';

/**
 * PostGIS geometry, geography and raster columns, as Hasura serves them (tests/fixture/postgis): GeoJSON
 * in and out, the spatial operators of geometry_comparison_exp, geography_comparison_exp and
 * raster_comparison_exp, `_cast`, and refusals. Every operator's answer is checked against the same
 * predicate written by hand in SQL over the same rows. PostgreSQL only: PGlite has no PostGIS.
 */
const FIXTURE = path.resolve(__dirname, 'fixture/postgis');
const INSTALL_HINT =
  'PostGIS is not installed for this PostgreSQL: apt-get install postgresql-15-postgis-3 (as .ci/run does)';

if (!onPostgres) console.log('hasura-postgis: skipped on PGlite, which has no PostGIS extension');
const suite = onPostgres ? describe : describe.skip;

/** GeoJSON as the engine reads it, and the same value as PostGIS text for the hand-written SQL. */
const square = (x0: number, y0: number, x1: number, y1: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ],
  ],
});
const point = (...coordinates: number[]) => ({ type: 'Point', coordinates });
const line = (...coordinates: number[][]) => ({ type: 'LineString', coordinates });
const crs4326 = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } };

suite('PostGIS (Hasura compatible)', () => {
  let database: TestDatabase;
  let server: TestServer;
  let sql: postgres.Sql;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = postgres(database.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
    const [available] = await sql`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'postgis'`;
    if (available.n === 0) throw new Error(INSTALL_HINT);
    server = await startTestServer({
      database,
      seed: false,
      env: { METADATA_DIR: path.join(FIXTURE, 'metadata'), MIGRATIONS_DIR: path.join(FIXTURE, 'sql') },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await sql?.end();
    await database?.drop();
  });

  /** The ids of the rows of `table` where `predicate` (SQL over the row, with $1 the GeoJSON text) holds. */
  async function idsWhere(table: string, predicate: string, operand?: unknown): Promise<number[]> {
    const rows = await sql.unsafe(
      `SELECT id FROM ${table} WHERE ${predicate} ORDER BY id`,
      operand === undefined ? [] : [JSON.stringify(operand)],
    );
    return rows.map((r) => r.id as number);
  }

  /** The ids the engine answers for `where: {<column>: $c}` with the comparison `c` as a variable. */
  async function idsFiltered(table: string, scalar: string, column: string, c: unknown): Promise<number[]> {
    const res = await server.gql(
      `query($c: ${scalar}_comparison_exp) { ${table}(where: {${column}: $c}, order_by: {id: asc}) { id } }`,
      { c },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data[table].map((r: { id: number }) => r.id);
  }

  async function inputFields(type: string): Promise<string[]> {
    const res = await server.gql(`{ __type(name: "${type}") { inputFields { name } } }`);
    return (res.body.data.__type?.inputFields ?? []).map((f: { name: string }) => f.name);
  }

  test('the comparison types offer the PostGIS operators on their columns only, and every one is offered', async () => {
    const geometry = await inputFields('geometry_comparison_exp');
    const geography = await inputFields('geography_comparison_exp');
    const raster = await inputFields('raster_comparison_exp');
    expect(geometry).toEqual(expect.arrayContaining(['_eq', '_st_contains', '_st_3d_d_within', '_cast']));
    expect(geography).toEqual(expect.arrayContaining(['_st_intersects', '_st_d_within', '_cast']));
    expect(geography).not.toContain('_st_contains');
    expect(geography).not.toContain('_st_3d_intersects');
    expect(raster).toEqual(expect.arrayContaining(['_st_intersects_rast', '_st_intersects_nband_geom']));
    expect(raster).not.toContain('_gt');
    expect(await inputFields('st_d_within_geography_input')).toEqual(['distance', 'from', 'use_spheroid']);
    expect(await inputFields('jsonb_cast_exp')).toEqual(['String']);
    const offered = new Set([...geometry, ...geography, ...raster]);
    const spatial = Object.entries(OPERATORS).filter(([, o]) => 'extension' in o && o.extension?.startsWith('postgis'));
    expect(spatial.length).toBeGreaterThanOrEqual(13);
    expect(spatial.map(([op]) => op).filter((op) => !offered.has(op))).toEqual([]);
  });

  test('geometry and geography values come out as GeoJSON, with the crs, as ST_AsGeoJSON(value, 15, 4)', async () => {
    const res = await server.gql('{ places(order_by: {id: asc}) { id location shape area } }');
    expect(res.body.errors).toBeUndefined();
    const expected = await sql.unsafe(`SELECT id, ST_AsGeoJSON(location, 15, 4)::json AS location,
      ST_AsGeoJSON(shape, 15, 4)::json AS shape, ST_AsGeoJSON(area, 15, 4)::json AS area FROM places ORDER BY id`);
    expect(res.body.data.places).toEqual(expected.map((r) => ({ ...r })));
    expect(res.body.data.places[0].location).toEqual({ type: 'Point', crs: crs4326, coordinates: [0, 0] });
    expect(res.body.data.places[4].location).toBeNull();
  });

  // [operator, column, its scalar, the operand, the same predicate in SQL ($1: the operand's GeoJSON)]
  const GEOMETRY_CASES: [string, string, unknown, string][] = [
    ['_st_contains', 'shape', point(1, 1), 'ST_Contains(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_crosses', 'shape', line([2, -1], [2, 5]), 'ST_Crosses(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_equals', 'shape', point(2, 2), 'ST_Equals(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_intersects', 'shape', square(3, 1, 5, 3), 'ST_Intersects(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_overlaps', 'shape', square(3, 1, 5, 3), 'ST_Overlaps(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_touches', 'shape', square(8, 0, 9, 1), 'ST_Touches(shape, ST_GeomFromGeoJSON($1))'],
    ['_st_within', 'location', square(-1, -1, 3.5, 3.5), 'ST_Within(location, ST_GeomFromGeoJSON($1))'],
    ['_st_3d_intersects', 'shape', point(1, 1, 5), 'ST_3DIntersects(shape, ST_GeomFromGeoJSON($1))'],
  ];

  test.each(GEOMETRY_CASES)('geometry %s answers as PostGIS does over the same rows', async (op, column, v, pred) => {
    const expected = await idsWhere('places', pred.replace(/\b(shape|location)\b/, column), v);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(6);
    expect(await idsFiltered('places', 'geometry', column, { [op]: v })).toEqual(expected);
  });

  test('_st_d_within and _st_3d_d_within take {distance, from}', async () => {
    const from = point(0, 0);
    const near = await idsWhere('places', 'ST_DWithin(location, ST_GeomFromGeoJSON($1), 3)', from);
    expect(near).toEqual([1, 2, 4]);
    expect(await idsFiltered('places', 'geometry', 'location', { _st_d_within: { distance: 3, from } })).toEqual(near);
    const from3d = point(1, 1, 0);
    const near3d = await idsWhere('places', 'ST_3DDWithin(shape, ST_GeomFromGeoJSON($1), 2)', from3d);
    expect(near3d).toEqual([1, 2, 3, 6]);
    expect(
      await idsFiltered('places', 'geometry', 'shape', { _st_3d_d_within: { distance: 2, from: from3d } }),
    ).toEqual(near3d);
    // A literal object operand in the document, rather than a variable.
    const res = await server.gql(`{ places(where: {location: {_st_d_within: {distance: 3,
      from: {type: "Point", coordinates: [0, 0]}}}}, order_by: {id: asc}) { id } }`);
    expect(res.body.data.places.map((r: { id: number }) => r.id)).toEqual(near);
  });

  test('geography: _st_intersects, and _st_d_within in metres, on the spheroid unless use_spheroid is false', async () => {
    const inter = await idsWhere('places', 'ST_Intersects(area, ST_GeomFromGeoJSON($1)::geography)', point(0, 1));
    expect(inter).toEqual([3, 6]);
    expect(await idsFiltered('places', 'geography', 'area', { _st_intersects: point(0, 1) })).toEqual(inter);
    // Between 111,000 m (latitude 1° on the sphere ~111,195 m, on the spheroid ~110,574 m): they differ.
    const from = point(0, 0);
    const spheroid = await idsWhere(
      'places',
      'ST_DWithin(area, ST_GeomFromGeoJSON($1)::geography, 111000, true)',
      from,
    );
    const sphere = await idsWhere('places', 'ST_DWithin(area, ST_GeomFromGeoJSON($1)::geography, 111000, false)', from);
    expect(spheroid).not.toEqual(sphere);
    expect(await idsFiltered('places', 'geography', 'area', { _st_d_within: { distance: 111000, from } })).toEqual(
      spheroid,
    );
    expect(
      await idsFiltered('places', 'geography', 'area', {
        _st_d_within: { distance: 111000, from, use_spheroid: false },
      }),
    ).toEqual(sphere);
  });

  test('raster: _st_intersects_rast, _st_intersects_nband_geom and _st_intersects_geom_nband', async () => {
    const [tile] = await sql`SELECT rast::text AS hex FROM tiles WHERE id = 1`;
    const rast = await sql.unsafe('SELECT id FROM tiles WHERE ST_Intersects(rast, $1::raster) ORDER BY id', [tile.hex]);
    expect(rast.map((r) => r.id)).toEqual([1]);
    expect(await idsFiltered('tiles', 'raster', 'rast', { _st_intersects_rast: tile.hex })).toEqual([1]);
    // (0.5, 1.5) is tile 1's NODATA pixel: inside its hull, outside band 1's pixels with values.
    const nodata = point(0.5, 1.5);
    const inBand = await idsWhere('tiles', 'ST_Intersects(rast, 1, ST_GeomFromGeoJSON($1))', nodata);
    const inHull = await idsWhere('tiles', 'ST_Intersects(rast, ST_GeomFromGeoJSON($1), NULL::integer)', nodata);
    expect([inBand, inHull]).toEqual([[], [1]]);
    const ids = (c: unknown) => idsFiltered('tiles', 'raster', 'rast', c);
    expect(await ids({ _st_intersects_nband_geom: { nband: 1, geommin: nodata } })).toEqual(inBand);
    expect(await ids({ _st_intersects_geom_nband: { geommin: nodata } })).toEqual(inHull);
    expect(await ids({ _st_intersects_geom_nband: { geommin: nodata, nband: 1 } })).toEqual(inBand);
    expect(await ids({ _st_intersects_geom_nband: { geommin: point(1.5, 0.5), nband: 1 } })).toEqual([1]);
  });

  test('_cast: geometry to geography, geography to geometry, jsonb to String', async () => {
    const from = point(0, 0);
    const asGeography = await idsWhere(
      'places',
      'ST_DWithin(location::geography, ST_GeomFromGeoJSON($1)::geography, 200000)',
      from,
    );
    expect(asGeography).toEqual([1, 4]);
    expect(
      await idsFiltered('places', 'geometry', 'location', {
        _cast: { geography: { _st_d_within: { distance: 200000, from } } },
      }),
    ).toEqual(asGeography);
    const within = square(-1, -1, 1, 1.5);
    const asGeometry = await idsWhere('places', 'ST_Within(area::geometry, ST_GeomFromGeoJSON($1))', within);
    expect(asGeometry).toEqual([1, 3, 4]);
    expect(await idsFiltered('places', 'geography', 'area', { _cast: { geometry: { _st_within: within } } })).toEqual(
      asGeometry,
    );
    const text = await idsWhere('places', `doc::text LIKE '%square%'`);
    expect(text).toEqual([1]);
    expect(await idsFiltered('places', 'jsonb', 'doc', { _cast: { String: { _like: '%square%' } } })).toEqual(text);
    expect(await idsFiltered('places', 'jsonb', 'doc', { _cast: { String: { _eq: '"line"' } } })).toEqual([2]);
  });

  test('permissions: an object operand and _cast in a select filter', async () => {
    const nearby = await idsWhere('places', 'ST_DWithin(location, ST_GeomFromGeoJSON($1), 5)', point(0, 0));
    expect(nearby).toEqual([1, 2, 4, 6]);
    const res = await server.gql('{ places(order_by: {id: asc}) { id location } }', undefined, {
      'x-hasura-role': 'nearby',
    });
    expect(res.body.data.places.map((r: { id: number }) => r.id)).toEqual(nearby);
    const spherical = await idsWhere(
      'places',
      'ST_DWithin(location::geography, ST_GeomFromGeoJSON($1)::geography, 100000)',
      point(0, 0),
    );
    expect(spherical).toEqual([1]);
    const res2 = await server.gql('{ places { id } }', undefined, { 'x-hasura-role': 'spherical' });
    expect(res2.body.data.places.map((r: { id: number }) => r.id)).toEqual(spherical);
  });

  test('GeoJSON round trip: insert, returning, select, where _st_equals and _eq', async () => {
    const row = {
      id: 10,
      name: 'new',
      location: point(7.5, -3.25),
      shape: { ...square(0, 0, 1, 1), crs: { type: 'name', properties: { name: 'EPSG:3857' } } },
      area: line([1, 1], [2, 2]),
    };
    const ins = await server.gql(
      `mutation($o: places_insert_input!) { insert_places_one(object: $o) { id location shape area } }`,
      { o: row },
    );
    expect(ins.body.errors).toBeUndefined();
    const expected = {
      id: 10,
      location: { ...row.location, crs: crs4326 },
      shape: {
        type: 'Polygon',
        crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } },
        coordinates: row.shape.coordinates,
      },
      area: { ...row.area, crs: crs4326 },
    };
    expect(ins.body.data.insert_places_one).toEqual(expected);
    const [stored] = await sql`SELECT ST_AsEWKT(location) AS l, ST_SRID(shape) AS s FROM places WHERE id = 10`;
    expect(stored).toEqual({ l: 'SRID=4326;POINT(7.5 -3.25)', s: 3857 });
    const sel = await server.gql(
      `query($p: geometry!) { places(where: {location: {_st_equals: $p}}) { id location shape area } }`,
      { p: point(7.5, -3.25) },
    );
    expect(sel.body.data.places).toEqual([expected]);
    const eq = await server.gql(
      `{ places(where: {location: {_eq: {type: "Point", coordinates: [7.5, -3.25]}}}) { id } }`,
    );
    expect(eq.body.data.places).toEqual([{ id: 10 }]);
    const upd = await server.gql(
      `mutation($p: geometry) { update_places(where: {id: {_eq: 10}}, _set: {location: $p}) { returning { location } } }`,
      { p: point(1, 2) },
    );
    expect(upd.body.data.update_places.returning).toEqual([{ location: { ...point(1, 2), crs: crs4326 } }]);
    await sql`DELETE FROM places WHERE id = 10`;
  });

  test('objects inserted together (their values bound as one placeholder) store what one object at a time stores', async () => {
    const rows = [
      { id: 20, name: 'a', location: point(1, 2), shape: line([0, 0], [1, 1]), area: point(3, 4), doc: { k: [1] } },
      { id: 21, name: 'b', location: null, shape: square(0, 0, 2, 2), area: null, doc: 'text' },
      { id: 22, name: 'c', location: point(-1, 0.5), shape: point(5, 5, 1), area: point(0, 0), doc: null },
    ];
    const insert = `mutation($o: [places_insert_input!]!) { insert_places(objects: $o) { returning { id location shape area doc } } }`;
    const together = await server.gql(insert, { o: rows });
    expect(together.body.errors).toBeUndefined();
    const stored = () =>
      sql`SELECT id, ST_AsEWKT(location) AS l, ST_AsEWKT(shape) AS s, ST_AsEWKT(area) AS a, doc::text AS d
          FROM places WHERE id BETWEEN 20 AND 29 ORDER BY id`.then((r) => r.map((x) => ({ ...x, id: x.id - 20 })));
    const first = await stored();
    await sql`DELETE FROM places WHERE id BETWEEN 20 AND 29`;
    const alone = [];
    for (const row of rows) alone.push((await server.gql(insert, { o: [row] })).body.data.insert_places.returning[0]);
    expect(await stored()).toEqual(first);
    expect(together.body.data.insert_places.returning).toEqual(alone);
    expect(first.map((r) => r.l)).toEqual(['SRID=4326;POINT(1 2)', null, 'SRID=4326;POINT(-1 0.5)']);
    await sql`DELETE FROM places WHERE id BETWEEN 20 AND 29`;
  });

  test('GeoJSON literals: bare names are strings, variables inside are filled per request and checked', async () => {
    const bare = await server.gql(
      '{ places(where: {location: {_eq: {type: Point, coordinates: [7.5, -3.25]}}}) { id } }',
    );
    expect(bare.body.errors).toBeUndefined();
    const doc =
      'query($x: Float, $y: Float) { places(where: {location: {_st_d_within: {distance: 0.001, from: {type: "Point", coordinates: [$x, $y]}}}}) { id } }';
    const [[a], [b]] = await Promise.all([
      sql`SELECT ST_X(location) AS x, ST_Y(location) AS y, id FROM places WHERE location IS NOT NULL ORDER BY id LIMIT 1`,
      sql`SELECT ST_X(location) AS x, ST_Y(location) AS y, id FROM places WHERE location IS NOT NULL ORDER BY id DESC LIMIT 1`,
    ]);
    for (const p of [a, b]) {
      const res = await server.gql(doc, { x: p.x, y: p.y });
      expect(res.body.data.places.map((r: { id: number }) => r.id)).toContain(p.id);
    }
    const missing = await server.gql(doc, { x: 1 });
    expect(missing.body.errors[0].extensions.code).toBe('validation-failed');
    const wrong = await server.gql(
      'query($c: [Float]) { places(where: {location: {_eq: {type: "Point", coordinates: $c}}}) { id } }',
      { c: [1] },
    );
    expect(wrong.body.errors[0].extensions.code).toBe('validation-failed');
  });

  test('malformed GeoJSON is validation-failed; a value PostGIS refuses for the column is data-exception', async () => {
    const where = (v: unknown) =>
      server.gql('query($v: geometry!) { places(where: {shape: {_st_intersects: $v}}) { id } }', { v });
    for (const bad of [
      { type: 'Circle', coordinates: [0, 0] },
      { type: 'Point', coordinates: [0] },
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      },
      'POINT(0 0)',
      { type: 'toString', coordinates: [0, 0] },
    ]) {
      const res = await where(bad);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('validation-failed');
    }
    const literal = await server.gql('{ places(where: {shape: {_st_within: {type: "Point"}}}) { id } }');
    expect(literal.body.errors[0].extensions.code).toBe('validation-failed');
    const raster = await server.gql('{ tiles(where: {rast: {_st_intersects_rast: "xyz"}}) { id } }');
    expect(raster.body.errors[0].extensions.code).toBe('validation-failed');
    // A line string is valid GeoJSON, but not a value of a geometry(Point, 4326) column.
    const ins = await server.gql(
      'mutation($l: geometry) { insert_places_one(object: {id: 11, name: "x", location: $l}) { id } }',
      {
        l: line([0, 0], [1, 1]),
      },
    );
    expect(ins.body.errors[0].extensions.code).toBe('data-exception');
    expect(ins.body.errors[0].message).toMatch(/does not match column type/);
    expect(await idsWhere('places', 'id = 11')).toEqual([]);
  });
});
