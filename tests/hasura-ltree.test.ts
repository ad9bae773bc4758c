import type { TestServer } from './support/server';
import { asHasuraUser, startHasuraFixtureServer } from './support/fixture-hasura';
import { backendName } from './support/database';

/**
 * ltree columns (the ltree extension; PGlite loads its contrib build at start-up): the `ltree` scalar
 * and Hasura's ltree operators, with `lquery` and `ltxtquery` operands, offered on ltree columns only.
 * The tree is the one of PostgreSQL's ltree documentation.
 */
describe(`ltree operators (${backendName})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startHasuraFixtureServer();
  });
  afterAll(() => server.close());

  const paths = async (where: string, variables?: Record<string, unknown>, vars = '') => {
    const res = await server.gql(
      `query ${vars} { categories(where: ${where}, order_by: {path: asc}) { path } }`,
      variables,
      asHasuraUser(1),
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data.categories.map((c: { path: string }) => c.path);
  };

  test('_ancestor and _descendant (the path itself included)', async () => {
    expect(await paths('{path: {_ancestor: "Top.Science.Astronomy"}}')).toEqual([
      'Top',
      'Top.Science',
      'Top.Science.Astronomy',
    ]);
    expect(await paths('{path: {_descendant: "Top.Science"}}')).toEqual([
      'Top.Science',
      'Top.Science.Astronomy',
      'Top.Science.Astronomy.Astrophysics',
      'Top.Science.Astronomy.Cosmology',
    ]);
  });

  test('_ancestor_any and _descendant_any take a list of paths (as variables too)', async () => {
    expect(
      await paths('{path: {_ancestor_any: ["Top.Collections.Pictures.Astronomy", "Top.Science.Astronomy"]}}'),
    ).toEqual([
      'Top',
      'Top.Collections',
      'Top.Collections.Pictures',
      'Top.Collections.Pictures.Astronomy',
      'Top.Science',
      'Top.Science.Astronomy',
    ]);
    expect(
      await paths(
        '{path: {_descendant_any: $p}}',
        { p: ['Top.Hobbies', 'Top.Science.Astronomy.Cosmology'] },
        '($p: [ltree!])',
      ),
    ).toEqual(['Top.Hobbies', 'Top.Hobbies.Amateurs_Astronomy', 'Top.Science.Astronomy.Cosmology']);
  });

  test('_matches (lquery), _matches_any ([String!] of lquery) and _matches_fulltext (ltxtquery)', async () => {
    expect(await paths('{path: {_matches: "*.Astronomy.*{1}"}}')).toEqual([
      'Top.Collections.Pictures.Astronomy.Astronauts',
      'Top.Collections.Pictures.Astronomy.Galaxies',
      'Top.Collections.Pictures.Astronomy.Stars',
      'Top.Science.Astronomy.Astrophysics',
      'Top.Science.Astronomy.Cosmology',
    ]);
    expect(
      await paths('{path: {_matches_any: $q}}', { q: ['*.Hobbies.*', 'Top.Science.!Astronomy'] }, '($q: [String!])'),
    ).toEqual(['Top.Hobbies', 'Top.Hobbies.Amateurs_Astronomy']);
    expect(await paths('{path: {_matches_fulltext: "Astro*% & !pictures@"}}')).toEqual([
      'Top.Hobbies.Amateurs_Astronomy',
      'Top.Science.Astronomy',
      'Top.Science.Astronomy.Astrophysics',
      'Top.Science.Astronomy.Cosmology',
    ]);
  });

  test('ltree columns keep _eq, _in and ordering; the operators combine with _and/_not', async () => {
    expect(await paths('{path: {_in: ["Top", "Top.Hobbies"]}}')).toEqual(['Top', 'Top.Hobbies']);
    expect(
      await paths('{_and: [{path: {_descendant: "Top.Collections"}}, {_not: {path: {_matches: "*.Astronomy.*"}}}]}'),
    ).toEqual(['Top.Collections', 'Top.Collections.Pictures']);
    expect(await paths('{path: {_gt: "Top.Science.Astronomy"}}')).toEqual([
      'Top.Science.Astronomy.Astrophysics',
      'Top.Science.Astronomy.Cosmology',
    ]);
  });

  test('the schema: ltree_comparison_exp with Hasura operand types; the ltree operators only there', async () => {
    const res = await server.gql(`{
      ltree: __type(name: "ltree_comparison_exp") { inputFields { name type { kind name ofType { kind name ofType { name } } } } }
      text: __type(name: "String_comparison_exp") { inputFields { name } }
      int: __type(name: "Int_comparison_exp") { inputFields { name } }
    }`);
    const typeOf = (name: string) =>
      res.body.data.ltree.inputFields.find((f: { name: string }) => f.name === name)?.type;
    expect(typeOf('_ancestor')).toEqual({ kind: 'SCALAR', name: 'ltree', ofType: null });
    expect(typeOf('_descendant')).toEqual({ kind: 'SCALAR', name: 'ltree', ofType: null });
    const list = (of: string) => ({
      kind: 'LIST',
      name: null,
      ofType: { kind: 'NON_NULL', name: null, ofType: { name: of } },
    });
    expect(typeOf('_ancestor_any')).toEqual(list('ltree'));
    expect(typeOf('_descendant_any')).toEqual(list('ltree'));
    expect(typeOf('_matches')).toEqual({ kind: 'SCALAR', name: 'lquery', ofType: null });
    expect(typeOf('_matches_any')).toEqual(list('String'));
    expect(typeOf('_matches_fulltext')).toEqual({ kind: 'SCALAR', name: 'ltxtquery', ofType: null });
    expect(typeOf('_eq')).toEqual({ kind: 'SCALAR', name: 'ltree', ofType: null });
    for (const other of [res.body.data.text, res.body.data.int]) {
      const names = other.inputFields.map((f: { name: string }) => f.name);
      expect(names).not.toContain('_ancestor');
      expect(names).not.toContain('_matches');
    }
  });

  test('an ltree value is checked as a label path; ltree columns are written and read as strings', async () => {
    const bad = await server.gql('{ categories(where: {path: {_ancestor: "Top..Science"}}) { path } }');
    expect(bad.body.errors[0].extensions.code).toBe('validation-failed');
    expect(bad.body.errors[0].message).toMatch(/invalid value for ltree/);
    const badVar = await server.gql('query ($p: ltree) { categories(where: {path: {_descendant: $p}}) { path } }', {
      p: 'not a path',
    });
    expect(badVar.body.errors[0].extensions.code).toBe('validation-failed');
    const ins = await server.gql(
      `mutation { insert_categories_one(object: {path: "Top.Science.Biology", name: "biology"}) { path } }`,
    );
    expect(ins.body).toEqual({ data: { insert_categories_one: { path: 'Top.Science.Biology' } } });
    expect(await paths('{path: {_descendant: "Top.Science", _matches: "*.Biology"}}')).toEqual(['Top.Science.Biology']);
  });
});
