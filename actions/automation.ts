import { analyticOperation } from './analytics/operation';
import { jsonbWhere, type Dataset, type Field, type WhereField } from './analytics/dataset';

/**
 * Automation playbooks (table auto_playbook) through the analytic builder: auto_playbook_v2 lists
 * them, auto_playbook_grouping_v2 counts them. jsonb columns (trigger, resource_filter, tasks,
 * attributes) are returned as their JSON text; username / display_name are the creator's,
 * updated_username / updated_user_displayname the last editor's.
 */

const FROM = 'auto_playbook p LEFT JOIN users cu ON cu.id = p.created_by LEFT JOIN users uu ON uu.id = p.updated_by';

const fields: Record<string, Field> = {
  account_id: { sql: 'p.account_id::text', type: 'string' },
  attributes: { sql: 'p.attributes::text', type: 'string' },
  created_at: { sql: 'p.created_at', type: 'datetime' },
  display_name: { sql: 'cu.display_name', type: 'string' },
  id: { sql: 'p.id::text', type: 'string' },
  last_executed_time: { sql: 'p.last_executed_time', type: 'datetime' },
  name: { sql: 'p.name', type: 'string' },
  // The kind of resource the playbook acts on, when its resource filter names one.
  resource: { sql: `(p.resource_filter ->> 'resource')`, type: 'string' },
  resource_filter: { sql: 'p.resource_filter::text', type: 'string' },
  status: { sql: 'p.status', type: 'string' },
  tasks: { sql: 'p.tasks::text', type: 'string' },
  tenant_id: { sql: 'p.tenant_id::text', type: 'string', constant: true },
  trigger: { sql: 'p.trigger::text', type: 'string' },
  updated_by: { sql: 'p.updated_by::text', type: 'string' },
  updated_user_displayname: { sql: 'uu.display_name', type: 'string' },
  updated_username: { sql: 'uu.username', type: 'string' },
  username: { sql: 'cu.username', type: 'string' },
};

const where: Record<string, WhereField> = {
  account_id: { sql: 'p.account_id::text', type: 'string' },
  id: { sql: 'p.id::text', type: 'string' },
  name: { sql: 'p.name', type: 'string' },
  resource_filter: jsonbWhere('p.resource_filter'),
  status: { sql: 'p.status', type: 'string' },
  tenant_id: { sql: 'p.tenant_id::text', type: 'string' },
  trigger: jsonbWhere('p.trigger'),
};

export const playbooks: Dataset = {
  name: 'auto_playbook_v2',
  from: FROM,
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields,
  where,
};

export const playbookGroupings: Dataset = {
  name: 'auto_playbook_grouping_v2',
  from: 'auto_playbook p',
  tenant: { sql: 'p.tenant_id', cast: 'uuid' },
  fields: { tenant_id: fields.tenant_id },
  aggregates: { count: { sql: 'count(*)::float8', type: 'float' } },
  where,
};

export const auto_playbook_v2 = analyticOperation(playbooks);
export const auto_playbook_grouping_v2 = analyticOperation(playbookGroupings);
