import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { Column, Relationship, Table } from '../model/model-types';
import type { RolePermissions } from '../model/role-permissions';
import { NUMERIC_SCALARS, ORDERED_SCALARS } from '../model/scalar-types';
import { nonNullList, type SharedInputs } from './input-types';
import { ext } from './meaning';

const VALID_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
/** Columns whose selection takes a `path` argument (a part of the value, as Hasura's JSON select path). */
const JSON_COLUMN_SCALARS = new Set(['json', 'jsonb']);
const STAT_FUNCTIONS = ['avg', 'stddev', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp', 'variance'];

/**
 * The name of a table's input type. Hasura names a logical model's column enum `<model>_enum_name` and
 * its where type `<model>_bool_exp_bool_exp`; clients written against Hasura use those names.
 */
export function typeName(table: Table, kind: 'select_column' | 'bool_exp'): string {
  if (table.kind !== 'logical_model') return `${table.gqlName}_${kind}`;
  return kind === 'select_column' ? `${table.gqlName}_enum_name` : `${table.gqlName}_bool_exp_bool_exp`;
}

/**
 * The GraphQL types of the tables one role can see, built on demand and memoised by name. A column
 * the role may not read, and a relationship to a table it may not read, do not exist in these types.
 */
export class TableTypes {
  private memo = new Map<string, unknown>();

  constructor(
    readonly perms: RolePermissions,
    readonly shared: SharedInputs,
  ) {}

  private once<T>(name: string, make: () => T): T {
    if (!this.memo.has(name)) this.memo.set(name, make());
    return this.memo.get(name) as T;
  }

  /** Columns the role may read, in table order. */
  columns(table: Table): Column[] {
    const allowed = this.perms.select(table)?.columns;
    return table.columns.filter((c) => allowed?.has(c.name) && VALID_NAME.test(c.gqlName));
  }

  /**
   * Whether the table exists for the role: it may select some column. A select permission with no
   * column (or none with a GraphQL name) gives no type, as GraphQL has no object without fields; then
   * the table has no root field and no relationship leads to it, as in Hasura.
   */
  selectable(table: Table): boolean {
    return this.columns(table).length > 0;
  }

  /** Relationships whose target the role may read. */
  relationships(table: Table): Relationship[] {
    return table.relationships.filter((r) => this.selectable(r.target));
  }

  canAggregate(table: Table): boolean {
    return this.selectable(table) && this.perms.select(table)?.allowAggregations === true;
  }

  object(table: Table): GraphQLObjectType {
    return this.once(
      `obj:${table.gqlName}`,
      () =>
        new GraphQLObjectType({
          name: table.gqlName,
          description:
            table.kind === 'logical_model'
              ? (table.description ?? `fields of the logical model "${table.name}"`)
              : `columns and relationships of "${table.schema}.${table.name}"`,
          fields: () => {
            const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
            for (const c of this.columns(table)) {
              const t = this.shared.columnScalar(c);
              fields[c.gqlName] = {
                type: c.nullable ? t : new GraphQLNonNull(t),
                args: JSON_COLUMN_SCALARS.has(c.scalar)
                  ? { path: { type: GraphQLString, description: 'JSON select path' } }
                  : undefined,
                extensions: ext({ kind: 'column', column: c }),
              };
            }
            for (const r of this.relationships(table)) {
              if (r.kind === 'object') {
                fields[r.name] = {
                  type: this.object(r.target),
                  description: 'An object relationship',
                  extensions: ext({ kind: 'objectRel', rel: r }),
                };
              } else {
                fields[r.name] = {
                  type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.object(r.target)))),
                  description: 'An array relationship',
                  args: this.selectArgs(r.target),
                  extensions: ext({ kind: 'arrayRel', rel: r }),
                };
                if (this.canAggregate(r.target)) {
                  fields[`${r.name}_aggregate`] = {
                    type: new GraphQLNonNull(this.aggregate(r.target)),
                    description: 'An aggregate relationship',
                    args: this.selectArgs(r.target),
                    extensions: ext({ kind: 'arrayRelAggregate', rel: r }),
                  };
                }
              }
            }
            return fields;
          },
        }),
    );
  }

  /** distinct_on, limit, offset, order_by, where: the arguments of every list of rows. */
  selectArgs(table: Table): GraphQLFieldConfigArgumentMap {
    return {
      distinct_on: { type: nonNullList(this.selectColumn(table)), description: 'distinct select on columns' },
      limit: { type: GraphQLInt, description: 'limit the number of rows returned' },
      offset: { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by' },
      order_by: { type: nonNullList(this.orderBy(table)), description: 'sort the rows by one or more columns' },
      where: { type: this.boolExp(table), description: 'filter the rows returned' },
    };
  }

  selectColumn(table: Table): GraphQLEnumType {
    return this.once(
      `sel:${table.gqlName}`,
      () =>
        new GraphQLEnumType({
          name: typeName(table, 'select_column'),
          description: `select columns of table "${table.name}"`,
          values: Object.fromEntries(
            this.columns(table).map((c) => [c.gqlName, { value: c.name, description: 'column name' }]),
          ),
        }),
    );
  }

  boolExp(table: Table): GraphQLInputObjectType {
    return this.once(`bool:${table.gqlName}`, () => {
      const self: GraphQLInputObjectType = new GraphQLInputObjectType({
        name: typeName(table, 'bool_exp'),
        description: `Boolean expression to filter rows from the table "${table.name}". All fields are combined with a logical 'AND'.`,
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = {
            _and: { type: nonNullList(self) },
            _not: { type: self },
            _or: { type: nonNullList(self) },
          };
          for (const c of this.columns(table)) fields[c.gqlName] = { type: this.shared.comparison(c) };
          for (const r of this.relationships(table)) {
            fields[r.name] = { type: this.boolExp(r.target) };
            if (r.kind === 'array' && this.canAggregate(r.target))
              fields[`${r.name}_aggregate`] = { type: this.aggregateBoolExp(r.target) };
          }
          return fields;
        },
      });
      return self;
    });
  }

  aggregateBoolExp(table: Table): GraphQLInputObjectType {
    return this.once(
      `aggbool:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_aggregate_bool_exp`,
          fields: () => ({
            count: {
              type: new GraphQLInputObjectType({
                name: `${table.gqlName}_aggregate_bool_exp_count`,
                fields: () => ({
                  arguments: { type: nonNullList(this.selectColumn(table)) },
                  distinct: { type: GraphQLBoolean },
                  filter: { type: this.boolExp(table) },
                  predicate: { type: new GraphQLNonNull(this.shared.intComparison()) },
                }),
              }),
            },
          }),
        }),
    );
  }

  orderBy(table: Table): GraphQLInputObjectType {
    return this.once(
      `order:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_order_by`,
          description: `Ordering options when selecting data from "${table.name}".`,
          fields: () => {
            const fields: GraphQLInputFieldConfigMap = {};
            for (const c of this.columns(table)) fields[c.gqlName] = { type: this.shared.orderBy };
            for (const r of this.relationships(table)) {
              if (r.kind === 'object') fields[r.name] = { type: this.orderBy(r.target) };
              else if (this.canAggregate(r.target))
                fields[`${r.name}_aggregate`] = { type: this.aggregateOrderBy(r.target) };
            }
            return fields;
          },
        }),
    );
  }

  aggregateOrderBy(table: Table): GraphQLInputObjectType {
    return this.once(
      `aggorder:${table.gqlName}`,
      () =>
        new GraphQLInputObjectType({
          name: `${table.gqlName}_aggregate_order_by`,
          description: `order by aggregate values of table "${table.name}"`,
          fields: () => {
            const fields: GraphQLInputFieldConfigMap = { count: { type: this.shared.orderBy } };
            for (const fn of this.functions(table)) {
              fields[fn.name] = {
                type: new GraphQLInputObjectType({
                  name: `${table.gqlName}_${fn.name}_order_by`,
                  fields: Object.fromEntries(fn.columns.map((c) => [c.gqlName, { type: this.shared.orderBy }])),
                }),
              };
            }
            return fields;
          },
        }),
    );
  }

  /** The aggregate functions that apply to some column of the table, with those columns. */
  functions(table: Table): { name: string; columns: Column[]; sameType: boolean }[] {
    const cols = this.columns(table);
    const numeric = cols.filter((c) => NUMERIC_SCALARS.has(c.scalar) && !c.enumValues);
    const ordered = cols.filter((c) => ORDERED_SCALARS.has(c.scalar) && !c.enumValues);
    const out = [];
    if (numeric.length) {
      out.push({ name: 'sum', columns: numeric, sameType: true });
      for (const fn of STAT_FUNCTIONS) out.push({ name: fn, columns: numeric, sameType: false });
    }
    if (ordered.length) {
      out.push({ name: 'max', columns: ordered, sameType: true }, { name: 'min', columns: ordered, sameType: true });
    }
    return out;
  }

  aggregate(table: Table): GraphQLObjectType {
    return this.once(
      `agg:${table.gqlName}`,
      () =>
        new GraphQLObjectType({
          name: `${table.gqlName}_aggregate`,
          description: `aggregated selection of "${table.name}"`,
          fields: () => ({
            aggregate: { type: this.aggregateFields(table), extensions: ext({ kind: 'aggregateFields' }) },
            nodes: {
              type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.object(table)))),
              extensions: ext({ kind: 'nodes' }),
            },
          }),
        }),
    );
  }

  aggregateFields(table: Table): GraphQLObjectType {
    return this.once(
      `aggfields:${table.gqlName}`,
      () =>
        new GraphQLObjectType({
          name: `${table.gqlName}_aggregate_fields`,
          description: `aggregate fields of "${table.name}"`,
          fields: () => {
            const fields: GraphQLFieldConfigMap<unknown, unknown> = {
              count: {
                type: new GraphQLNonNull(GraphQLInt),
                args: { columns: { type: nonNullList(this.selectColumn(table)) }, distinct: { type: GraphQLBoolean } },
                extensions: ext({ kind: 'count' }),
              },
            };
            for (const fn of this.functions(table)) {
              fields[fn.name] = {
                type: new GraphQLObjectType({
                  name: `${table.gqlName}_${fn.name}_fields`,
                  description: `aggregate ${fn.name} on columns`,
                  fields: Object.fromEntries(
                    fn.columns.map((c) => [
                      c.gqlName,
                      {
                        type: fn.sameType ? this.shared.columnScalar(c) : GraphQLFloat,
                        extensions: ext({ kind: 'column', column: c }),
                      },
                    ]),
                  ),
                }),
                extensions: ext({ kind: 'aggregateFunction', fn: fn.name }),
              };
            }
            return fields;
          },
        }),
    );
  }
}
