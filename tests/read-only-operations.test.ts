import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { DEMO } from '../demo/demo-data';
import { writerRoles } from '../engine/compile/model/role-permissions';
import { backendName } from './support/database';
import { as, startTestServer, type TestServer } from './support/server';

/**
 * A read-only role (the metadata gives it no insert, update, delete or mutation) never writes or spends
 * on its tenant's behalf, even through an operation the metadata lets it call: here a copy of the
 * metadata grants `tenant_admin_readonly` the query `auto_optimize_workload` (which writes a policy),
 * and the handler still refuses it. The AI analyses' refusals are in ai-analysis.test.ts.
 */
const acme = DEMO.tenants.acme;
const AWS = acme.cloudAccounts.aws;
const readonly = as('tenant_admin_readonly', acme.id, acme.users.readonly.id);
const admin = as('tenant_admin', acme.id, acme.users.admin.id);
const POLICY = `{ auto_optimize_workload(arg1: {account_id: "${AWS}", resource_filter: [{namespace: "production"}]}) { id } }`;

describe(`read-only roles on ${backendName}`, () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metadata-'));
    fs.cpSync(path.join(__dirname, '..', 'metadata'), dir, { recursive: true });
    const file = path.join(dir, 'actions', 'automation.yaml');
    const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
    const action = doc.actions.find((a: { name: string }) => a.name === 'auto_optimize_workload');
    action.permissions.push({ role: 'tenant_admin_readonly' });
    fs.writeFileSync(file, YAML.stringify(doc));
    server = await startTestServer({ env: { METADATA_DIR: dir } });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const policies = async () =>
    Number(
      (await server.started.db.query('SELECT count(*) AS n FROM auto_pilot WHERE tenant_id = $1::uuid', [acme.id]))[0]!
        .n,
    );

  test('the writers are the roles with a write in the metadata: tenant_admin, not the read-only role', () => {
    expect(writerRoles(server.started.engine.model)).toEqual(['tenant_admin']);
  });

  test('granted a query that writes, the read-only role is refused with permission-error and nothing is written', async () => {
    const before = await policies();
    const res = await server.gql(POLICY, {}, readonly);
    expect(res.body.errors[0].extensions.code).toBe('permission-error');
    expect(res.body.errors[0].message).toBe(
      'the role "tenant_admin_readonly" is read-only: creating an auto-optimize policy is for tenant_admin',
    );
    expect(await policies()).toBe(before);
    // The same request by tenant_admin writes the policy: the refusal is the role's, not the request's.
    const made = await server.gql(POLICY, {}, admin);
    expect(made.body.errors).toBeUndefined();
    expect(await policies()).toBe(before + 1);
  });
});
