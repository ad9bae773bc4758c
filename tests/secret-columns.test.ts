import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { DEMO } from '../demo/demo-data';
import { isHiddenColumn, isWriteOnlyColumn, SECRET_TABLES } from '../engine/compile/model/secret-columns';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * Secret material is not part of the API for any role, the admin role included: hashes of secrets not
 * at all, credentials the tenant hands over (cloud access secrets) written but never read, and the
 * sign-in tables not tracked. Operators still read all of it with SQL.
 */
const acme = DEMO.tenants.acme;

describe(`secret columns on ${backendName}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('the database does hold such columns, so the walk below has something to miss', async () => {
    const rows = await server.started.db.query(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const names = rows.map((r) => String(r.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'users.password_hash',
        'api_tokens.secret_hash',
        'cloud_accounts.access_secret',
        'agent.access_secret_v2',
      ]),
    );
    const tables = new Set(names.map((n) => n.split('.')[0]));
    for (const t of SECRET_TABLES) expect(tables).toContain(t);
  });

  test('the admin schema, walked through introspection, shows no secret column or table', async () => {
    const res = await server.gql(getIntrospectionQuery());
    const schema = (res.body.data as IntrospectionQuery).__schema;
    expect(schema.types.length).toBeGreaterThan(100);
    const found: string[] = [];
    // A tracked table would bring its filter and column types; `api_tokens` the operation (the caller's
    // own tokens, without their hashes) is not one.
    const secretTable = (name: string) =>
      [...SECRET_TABLES].some((t) => name === `${t}_bool_exp` || name === `${t}_select_column`);
    for (const type of schema.types) {
      if (secretTable(type.name)) found.push(type.name);
      // Where a column is read or filtered on; `_update_column` and insert inputs are where one is written.
      const readSide =
        type.kind === 'OBJECT' ||
        type.kind === 'INTERFACE' ||
        /_(bool_exp|order_by|select_column|select_column_.*)$/.test(type.name);
      // The one secret shown on purpose: a new API token's, once, at creation (the spec's token dialog).
      if (type.name === 'CreatedApiToken') continue;
      const names = [
        ...('fields' in type && type.fields ? type.fields.map((f) => f.name) : []),
        ...('inputFields' in type && type.inputFields ? type.inputFields.map((f) => f.name) : []),
        ...('enumValues' in type && type.enumValues ? type.enumValues.map((v) => v.name) : []),
      ];
      for (const n of names)
        if (isHiddenColumn(n) || (readSide && isWriteOnlyColumn(n))) found.push(`${type.name}.${n}`);
    }
    expect(found).toEqual([]);
    // The walk sees the columns next to them, and the write-only ones where they may be written.
    const byName = new Map(schema.types.map((t) => [t.name, t]));
    const fields = (name: string) => {
      const t = byName.get(name) as { fields?: { name: string }[]; inputFields?: { name: string }[] };
      return (t.fields ?? t.inputFields ?? []).map((f) => f.name);
    };
    expect(fields('users')).toContain('username');
    expect(fields('cloud_accounts_insert_input')).toContain('access_secret');
  });

  test('asked for by name, the admin role gets validation-failed', async () => {
    const queries = [
      '{ users { password_hash } }',
      '{ cloud_accounts { access_secret } }',
      '{ api_tokens_aggregate { aggregate { count } } }',
      '{ saml_assertions_seen { assertion_id } }',
    ];
    for (const q of queries) {
      const res = await server.gql(q);
      expect([q, res.body.errors[0].extensions.code]).toEqual([q, 'validation-failed']);
    }
    const res = await server.gql('{ users(where: {password_hash: {_is_null: false}}) { id } }');
    expect(res.body.errors[0].extensions.code).toBe('validation-failed');
  });

  test('a write-only secret is written through GraphQL and read back only through SQL', async () => {
    const res = await server.gql(
      `mutation { insert_cloud_accounts_one(object: {account_name: "secret-test", account_type: "x",
        account_env: "prod", status: "active", access_key: "AKIA", access_secret: "s3cr3t",
        created_by: "${acme.users.admin.id}", updated_by: "${acme.users.admin.id}"}) { id access_key } }`,
      {},
      as('tenant_admin', acme.id, acme.users.admin.id),
    );
    expect(res.body.errors).toBeUndefined();
    const id = res.body.data.insert_cloud_accounts_one.id;
    const [row] = await server.started.db.query('SELECT access_secret FROM cloud_accounts WHERE id = $1::uuid', [id]);
    expect(row.access_secret).toBe('s3cr3t');
  });
});
