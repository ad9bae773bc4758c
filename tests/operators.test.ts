import { OPERATORS, operatorsFor } from '../engine/compile/model/operators';
import { startFixtureServer } from './support/fixture';
import type { TestServer } from './support/server';

/**
 * The operator table (engine/compile/model/operators.ts) is what the schema offers: every
 * `<scalar>_comparison_exp` lists exactly the table's operators for its columns, in table order, each
 * with its operand's type; and every operator of the table is offered somewhere in the fixture.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
const typeText = (t: TypeRef): string =>
  t.kind === 'NON_NULL' ? `${typeText(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeText(t.ofType!)}]` : t.name!;

async function comparisonTypes(): Promise<Map<string, [string, string][]>> {
  const res = await server.gql(`{ __schema { types { name inputFields { name type {
    kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`);
  const types = res.body.data.__schema.types as { name: string; inputFields: { name: string; type: TypeRef }[] }[];
  return new Map(
    types
      .filter((t) => t.name.endsWith('_comparison_exp'))
      .map((t) => [t.name.slice(0, -'_comparison_exp'.length), t.inputFields.map((f) => [f.name, typeText(f.type)])]),
  );
}

test('each comparison type offers the table operators for its scalar, in table order, with their operand types', async () => {
  const types = await comparisonTypes();
  expect(types.size).toBeGreaterThan(3);
  for (const [scalar, fields] of types) {
    // Lookup-table scalars end in _enum; their columns carry the allowed values.
    const column = { scalar, sqlType: 'text', enumValues: scalar.endsWith('_enum') ? ['x'] : undefined };
    const expected = operatorsFor(column).map(([op, o]): [string, string] => {
      const operand = {
        column: scalar,
        columnList: `[${scalar}!]`,
        boolean: 'Boolean',
        string: 'String',
        columnName: 'String',
        stringList: '[String!]',
        cast: `${scalar}_cast_exp`,
        object: o.object?.(column).name,
      }[o.operand];
      return [op, operand];
    });
    expect([scalar, fields]).toEqual([scalar, expected]);
  }
});

test('every operator of the table is offered on some column of the fixture', async () => {
  const offered = new Set([...(await comparisonTypes()).values()].flatMap((fields) => fields.map(([op]) => op)));
  // Operators of an extension's types (PostGIS) are offered where it is installed: tests/hasura-postgis.test.ts.
  const needsExtension = (op: string) => !!(OPERATORS as Record<string, { extension?: string }>)[op].extension;
  expect([...Object.keys(OPERATORS)].filter((op) => !offered.has(op) && !needsExtension(op))).toEqual([]);
});
