/**
 * JSON Schemas (draft-07, checked by ajv) for the metadata files. Unknown keys are refused so that a
 * typo (`select_permission`) stops start-up instead of silently granting nothing.
 */
const name = { type: 'string', minLength: 1 };
const tableRef = {
  anyOf: [
    name,
    { type: 'object', required: ['name'], additionalProperties: false, properties: { name, schema: name } },
  ],
};
const boolExp = { type: 'object' };
const columns = { anyOf: [{ const: '*' }, { type: 'array', items: name }] };
const permissionList = (permission: object) => ({
  type: 'array',
  items: {
    type: 'object',
    required: ['role', 'permission'],
    additionalProperties: false,
    properties: { role: name, permission, comment: { type: 'string' } },
  },
});
const relationship = {
  type: 'object',
  required: ['name', 'using'],
  additionalProperties: false,
  properties: {
    name,
    comment: { type: 'string' },
    using: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      properties: {
        foreign_key_constraint_on: {
          anyOf: [
            name,
            { type: 'array', items: name, minItems: 1 },
            {
              type: 'object',
              required: ['table'],
              additionalProperties: false,
              properties: {
                table: tableRef,
                column: name,
                columns: { anyOf: [name, { type: 'array', items: name, minItems: 1 }] },
              },
            },
          ],
        },
        manual_configuration: {
          type: 'object',
          required: ['remote_table', 'column_mapping'],
          additionalProperties: false,
          properties: {
            remote_table: tableRef,
            column_mapping: { type: 'object', minProperties: 1, additionalProperties: name },
            insertion_order: { enum: ['before_parent', 'after_parent', null] },
          },
        },
      },
    },
  },
};
const rootFieldName = {
  anyOf: [
    name,
    { type: 'null' },
    {
      type: 'object',
      additionalProperties: false,
      properties: { name: { anyOf: [name, { type: 'null' }] }, comment: { type: 'string' } },
    },
  ],
};

export const tableSchema = {
  type: 'object',
  required: ['table'],
  additionalProperties: false,
  properties: {
    table: tableRef,
    is_enum: { type: 'boolean' },
    configuration: {
      type: 'object',
      additionalProperties: false,
      properties: {
        custom_name: name,
        custom_root_fields: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(
            [
              'select',
              'select_by_pk',
              'select_aggregate',
              'select_stream',
              'insert',
              'insert_one',
              'update',
              'update_by_pk',
              'update_many',
              'delete',
              'delete_by_pk',
            ].map((k) => [k, rootFieldName]),
          ),
        },
        column_config: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            properties: { custom_name: name, comment: { type: 'string' } },
          },
        },
        custom_column_names: { type: 'object', additionalProperties: name },
        primary_key: { type: 'array', items: name, minItems: 1 },
        comment: { type: 'string' },
      },
    },
    object_relationships: { type: 'array', items: relationship },
    array_relationships: { type: 'array', items: relationship },
    computed_fields: { type: 'array' },
    remote_relationships: { type: 'array' },
    event_triggers: { type: 'array' },
    select_permissions: permissionList({
      type: 'object',
      required: ['columns'],
      additionalProperties: false,
      properties: {
        columns,
        filter: boolExp,
        limit: { type: 'integer', minimum: 0 },
        allow_aggregations: { type: 'boolean' },
        computed_fields: { type: 'array', items: name },
        query_root_fields: { type: 'array', items: name },
        subscription_root_fields: { type: 'array', items: name },
      },
    }),
    insert_permissions: permissionList({
      type: 'object',
      additionalProperties: false,
      properties: { check: boolExp, columns, set: { type: 'object' }, backend_only: { type: 'boolean' } },
    }),
    update_permissions: permissionList({
      type: 'object',
      additionalProperties: false,
      properties: {
        columns,
        filter: boolExp,
        check: { anyOf: [boolExp, { type: 'null' }] },
        set: { type: 'object' },
        backend_only: { type: 'boolean' },
      },
    }),
    delete_permissions: permissionList({
      type: 'object',
      additionalProperties: false,
      properties: { filter: boolExp, backend_only: { type: 'boolean' } },
    }),
  },
};

export const sourcesSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'kind', 'tables'],
    additionalProperties: false,
    properties: {
      name,
      kind: { enum: ['postgres', 'pg', 'citus', 'cockroach'] },
      configuration: { type: 'object' },
      tables: {},
      logical_models: {},
      native_queries: {},
      functions: {},
      customization: {},
    },
  },
};

export const actionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    actions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'definition'],
        additionalProperties: false,
        properties: {
          name,
          comment: { type: 'string' },
          definition: {
            type: 'object',
            required: ['handler'],
            additionalProperties: true,
            properties: {
              kind: { enum: ['synchronous', 'asynchronous'] },
              handler: name,
              type: { enum: ['query', 'mutation'] },
              timeout: { type: 'integer', minimum: 1 },
            },
          },
          permissions: { type: 'array', items: { type: 'object', required: ['role'], properties: { role: name } } },
        },
      },
    },
    custom_types: { type: 'object' },
  },
};

const scalarTypeRef = {
  anyOf: [
    name,
    {
      type: 'object',
      required: ['scalar'],
      additionalProperties: false,
      properties: { scalar: name, nullable: { type: 'boolean' } },
    },
  ],
};

export const logicalModelSchema = {
  type: 'object',
  required: ['name', 'fields'],
  additionalProperties: false,
  properties: {
    name,
    description: { type: 'string' },
    fields: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'type'],
        additionalProperties: false,
        properties: { name, type: scalarTypeRef, nullable: { type: 'boolean' }, description: { type: 'string' } },
      },
    },
    select_permissions: permissionList({
      type: 'object',
      required: ['columns'],
      additionalProperties: false,
      properties: { columns, filter: boolExp },
    }),
  },
};

export const nativeQuerySchema = {
  type: 'object',
  required: ['root_field_name', 'code', 'returns'],
  additionalProperties: false,
  properties: {
    root_field_name: name,
    code: { type: 'string', minLength: 1 },
    returns: name,
    description: { type: 'string' },
    type: { const: 'query' },
    arguments: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: { type: name, nullable: { type: 'boolean' }, description: { type: 'string' } },
      },
    },
  },
};
