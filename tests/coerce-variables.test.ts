import {
  getNamedType,
  getVariableValues,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  parse,
  typeFromAST,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLList,
  type OperationDefinitionNode,
} from 'graphql';
import { coerceVariables, fastCoerce } from '../engine/compile/execute/coerce-variables';
import { isColumnOperator } from '../engine/compile/model/operators';
import { countFreeShape, variableShape } from '../engine/compile/plan/values';
import { isEnumTableType } from '../engine/compile/schema/scalars';
import { DEMO } from '../demo/demo-data';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * The engine's variable coercion (engine/compile/execute/coerce-variables.ts) gives what graphql-js's
 * getVariableValues gives, over the product's schema: the same values, with their keys in the same
 * order, for valid variables; the same errors for the others. Then through HTTP: an insert with a list
 * of input objects, and refusals.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const ACCOUNT = '11111111-0000-4000-8000-000000000001';

/** Variable definitions and the variables sent, valid or not. */
const CASES: [string, Record<string, unknown>][] = [
  ['$objects: [auto_playbook_insert_input!]!', { objects: [{ account_id: ACCOUNT, name: 'a', status: 'DRAFT' }] }],
  // Keys given out of the type's order come back in its order.
  ['$objects: [auto_playbook_insert_input!]!', { objects: [{ status: 'DRAFT', name: 'b', account_id: ACCOUNT }] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: { name: 'one object as a list of one' } }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: null }],
  ['$objects: [auto_playbook_insert_input!]!', {}],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [null] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [{ no_such_column: 1 }] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [{ account_id: 'not-a-uuid' }] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: ['a string'] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [[{ name: 'nested list' }]] }],
  ['$objects: [auto_playbook_insert_input!]!', { objects: [{ trigger: { any: ['json', 1, null] } }] }],
  ['$where: spends_bool_exp', { where: { _and: [{ amount: { _gt: 5 } }, { _or: [{ unit: { _eq: 'USD' } }] }] } }],
  // A type inside itself, between other keys: the inner object's positions must not overwrite the outer's.
  [
    '$where: spends_bool_exp',
    {
      where: {
        unit: { _eq: 'USD' },
        _and: [{ date: { _gte: '2026-01-01' }, amount: { _lt: 9 }, _or: [{ id: { _is_null: false }, unit: {} }] }],
        amount: { _gt: 1 },
      },
    },
  ],
  ['$where: spends_bool_exp', { where: { _not: { cloudAccountByCloudAccount: { status: { _in: ['a', 'b'] } } } } }],
  ['$where: spends_bool_exp', { where: { amount: { _in: 5 } } }],
  ['$where: spends_bool_exp', { where: { amount: { _gt: 'five' } } }],
  ['$where: spends_bool_exp', { where: null }],
  ['$where: spends_bool_exp', {}],
  ['$where: spends_bool_exp', { where: { date: { _gte: '2026-01-01T00:00:00' } } }],
  ['$order: [spends_order_by!]', { order: [{ date: 'desc', id: 'asc' }, { amount: 'asc_nulls_first' }] }],
  ['$order: [spends_order_by!]', { order: { date: 'sideways' } }],
  ['$limit: Int, $offset: Int!', { limit: 10, offset: 0 }],
  ['$limit: Int, $offset: Int!', { limit: 1.5, offset: 0 }],
  ['$limit: Int, $offset: Int!', { limit: 10 }],
  ['$limit: Int = 5', {}],
  ['$limit: Int = 5', { limit: null }],
  ['$flag: Boolean, $name: String', { flag: 'true', name: 'x' }],
  ['$name: String', { name: 5 }],
  ['$id: uuid!', { id: ACCOUNT.toUpperCase() }],
  ['$id: uuid!', { id: ACCOUNT }],
  ['$tags: jsonb', { tags: { k: [1, { deep: true }] } }],
  ['$set: spends_set_input', { set: { unit: 'EUR', amount: 2 } }],
  ['$x: NoSuchType', { x: 1 }],
  ['$x: spends', { x: {} }],
];

describe('coerced as graphql-js coerces them', () => {
  test.each(CASES)('%s with %j', (definitions, inputs) => {
    const schema = t.started.engine.schemaFor('admin').schema;
    const op = parse(`query Q(${definitions}) { __typename }`).definitions[0] as OperationDefinitionNode;
    const defs = op.variableDefinitions ?? [];
    const ours = coerceVariables(schema, defs, inputs);
    const theirs = getVariableValues(schema, defs, inputs);
    // Only what getVariableValues refuses, and a variable left to its default, are left to it.
    const fast = fastCoerce(schema, defs, inputs);
    const defaulted = definitions.includes('=') && Object.keys(inputs).length === 0;
    expect(fast === undefined).toBe(!!theirs.errors || defaulted);
    if (theirs.errors) {
      expect(ours.errors?.map((e) => e.message)).toEqual(theirs.errors.map((e) => e.message));
    } else {
      expect(ours.errors).toBeUndefined();
      expect(ours.coerced).toEqual(theirs.coerced);
      // The same keys in the same order, at every depth.
      expect(JSON.stringify(ours.coerced)).toBe(JSON.stringify(theirs.coerced));
    }
  });
});

describe('coerced input objects', () => {
  const coerced = (definitions: string, inputs: Record<string, unknown>) => {
    const schema = t.started.engine.schemaFor('admin').schema;
    const op = parse(`query Q(${definitions}) { __typename }`).definitions[0] as OperationDefinitionNode;
    const defs = op.variableDefinitions ?? [];
    return { ours: fastCoerce(schema, defs, inputs)!.coerced, theirs: getVariableValues(schema, defs, inputs) };
  };

  // Few keys are sorted one way, many (past 16) another.
  test.each([5, 20])("%i keys given in reverse order come back in the type's order", (count) => {
    const schema = t.started.engine.schemaFor('admin').schema;
    const columnsOf = (name: string) =>
      Object.entries((schema.getType(name) as GraphQLInputObjectType).getFields())
        .filter(([, f]) => getNamedType(f.type).name.endsWith('_comparison_exp'))
        .map(([n]) => n);
    const [name] = Object.keys(schema.getTypeMap())
      .filter((n) => n.endsWith('_bool_exp'))
      .sort((x, y) => columnsOf(y).length - columnsOf(x).length);
    const names = columnsOf(name);
    expect(names.length).toBeGreaterThanOrEqual(count);
    const where = Object.fromEntries(
      names
        .slice(0, count)
        .reverse()
        .map((n) => [n, { _is_null: true }]),
    );
    const { ours, theirs } = coerced(`$where: ${name}`, { where });
    expect(Object.keys(ours.where as object)).toEqual(names.slice(0, count));
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs.coerced));
  });

  test("inherit no key, as graphql-js's objects without a prototype", () => {
    const { ours } = coerced('$set: spends_set_input', { set: { unit: 'EUR' } });
    const set = ours.set as Record<string, unknown>;
    expect('toString' in set).toBe(false);
    expect('constructor' in set).toBe(false);
    expect(set.hasOwnProperty).toBeUndefined();
    expect({ ...set }).toEqual({ unit: 'EUR' });
  });
});

/** The plan's cache key of a value as it was first written: asking the type what it is at every value. */
function shapeByType(value: unknown, type: GraphQLInputType): string {
  const bound = (x: unknown) => isScalarType(x) || isEnumTableType(x);
  if (value === null || value === undefined) return 'n';
  if (isNonNullType(type)) return shapeByType(value, type.ofType);
  if (bound(type)) return isScalarType(type) && type.name === 'Boolean' ? String(value) : '?';
  if (isListType(type) && bound(getNamedType(type))) return '?';
  if (isListType(type))
    return `[${(Array.isArray(value) ? value : [value]).map((v) => shapeByType(v, type.ofType)).join(',')}]`;
  if (isEnumType(type)) return JSON.stringify(value);
  if (isInputObjectType(type)) {
    const defs = type.getFields();
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}:${isColumnOperator(k) ? JSON.stringify(v) : defs[k] ? shapeByType(v, defs[k].type) : '?'}`)
      .join(',')}}`;
  }
  return '?';
}

describe("plans' cache keys (variableShape)", () => {
  const SHAPES: [string, Record<string, unknown>][] = [
    ...CASES,
    ['$where: spends_bool_exp', { where: { amount: { _ceq: 'budget' }, _or: [{ id: { _is_null: false } }, {}] } }],
    ['$flag: Boolean!, $order: order_by', { flag: false, order: 'desc_nulls_last' }],
    ['$objects: [spends_insert_input!]!', { objects: [{ amount: 1 }, { unit: 'x', amount: 2, tags: { a: [1] } }] }],
  ];
  test.each(SHAPES)('%s with %j', (definitions, inputs) => {
    const schema = t.started.engine.schemaFor('admin').schema;
    const op = parse(`query Q(${definitions}) { __typename }`).definitions[0] as OperationDefinitionNode;
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], inputs);
    // The cases added here are valid; those of CASES that are not have no plan to key.
    if (!CASES.some(([d, i]) => d === definitions && i === inputs)) expect(coerced.errors).toBeUndefined();
    if (coerced.errors) return;
    for (const d of op.variableDefinitions ?? []) {
      const type = typeFromAST(schema, d.type as never) as GraphQLInputType;
      const value = coerced.coerced[d.variable.name.value];
      expect(variableShape(value, type)).toBe(shapeByType(value, type));
      // Made once per type, the shaper gives the same again.
      expect(variableShape(value, type)).toBe(shapeByType(value, type));
    }
  });
});

describe("plans' count-free keys (countFreeShape)", () => {
  /** Values of one type each, some of one shape, some a key, a null, a Boolean or a column apart. */
  const VALUES: [string, unknown[]][] = [
    [
      'auto_playbook_insert_input!',
      [
        { account_id: ACCOUNT, name: 'a', status: 'DRAFT' },
        { account_id: ACCOUNT, name: 'b', status: 'ACTIVE' },
        { account_id: null, name: 'c', status: 'DRAFT' },
        { name: 'd', status: 'DRAFT' },
        { status: 'DRAFT', name: 'e', account_id: ACCOUNT },
      ],
    ],
    [
      'spends_bool_exp',
      [
        { amount: { _ceq: 'budget' }, _or: [{ id: { _is_null: false } }, {}] },
        { amount: { _ceq: 'budget' }, _or: [{ id: { _is_null: true } }, {}] },
        { amount: { _ceq: 'cost' }, _or: [{ id: { _is_null: false } }, {}] },
        { amount: { _ceq: 'budget' }, _or: [{ id: { _is_null: false } }] },
        { amount: { _eq: 1 } },
        { amount: { _eq: 2 } },
        { amount: { _in: [1, 2] } },
        { amount: { _in: null } },
      ],
    ],
    ['order_by', ['asc', 'desc', 'asc']],
  ];
  test.each(VALUES)('two %s are one shape exactly when their shapes are equal', (typeName, inputs) => {
    const schema = t.started.engine.schemaFor('admin').schema;
    const op = parse(`query Q($v: [${typeName}]) { __typename }`).definitions[0] as OperationDefinitionNode;
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], { v: inputs });
    expect(coerced.errors).toBeUndefined();
    const type = typeFromAST(schema, op.variableDefinitions![0].type as never) as GraphQLInputType;
    const item = (type as GraphQLList<GraphQLInputType>).ofType;
    const values = (coerced as { coerced: { v: unknown[] } }).coerced.v;
    let same = 0;
    values.forEach((a, i) =>
      values.forEach((b, j) => {
        const shape = shapeByType(a, item);
        const expected = shape === shapeByType(b, item) ? `*${shape}` : undefined;
        expect(countFreeShape([a, b], type)).toBe(expected);
        if (expected && i !== j) same++;
      }),
    );
    expect(same).toBeGreaterThan(0);
    // One item, or none, is not a count-free list: it keeps its count.
    expect(countFreeShape(values.slice(0, 1), type)).toBeUndefined();
  });
});

describe('through HTTP', () => {
  const acme = DEMO.tenants.acme;
  const session = as('tenant_admin', acme.id, acme.users.admin.id);

  test('an insert of a list of input objects, keys in any order, read back with a where and an order as variables', async () => {
    const unit = `coerce-${Date.now()}`;
    const account = acme.cloudAccounts.aws;
    const objects = [
      { cloud_account: account, date: '2026-01-02', amount: 2, unit },
      { unit, amount: 1, date: '2026-01-01', cloud_account: account },
    ];
    const ins = await t.gql(
      'mutation ($objects: [spends_insert_input!]!) { insert_spends(objects: $objects) { affected_rows } }',
      { objects },
      session,
    );
    expect(ins.body).toEqual({ data: { insert_spends: { affected_rows: 2 } } });
    const read = await t.gql(
      'query ($where: spends_bool_exp, $order: [spends_order_by!]) { spends(where: $where, order_by: $order) { amount date } }',
      { where: { unit: { _eq: unit } }, order: [{ date: 'asc' }] },
      session,
    );
    expect(read.body).toEqual({
      data: {
        spends: [
          { amount: 1, date: '2026-01-01T00:00:00' },
          { amount: 2, date: '2026-01-02T00:00:00' },
        ],
      },
    });
  });

  test('a variable of the wrong type is validation-failed, in graphql-js words', async () => {
    const res = await t.gql('query ($where: spends_bool_exp) { spends(where: $where) { id } }', {
      where: { amount: { _gt: 'five' } },
    });
    expect(res.body.errors[0].extensions.code).toBe('validation-failed');
    expect(res.body.errors[0].message).toMatch(/^Variable "\$where" got invalid value "five" at "where.amount._gt"/);
  });
});
