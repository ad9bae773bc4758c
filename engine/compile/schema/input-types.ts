import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';
import type { Column } from '../model/model';
import { isTextLike, JSON_SCALARS } from '../model/scalar-types';
import { lookupScalarType, scalarType } from './scalars';

/** Input types shared by every table of a schema: column scalars, comparison expressions, order_by. */
export class SharedInputs {
  private scalars = new Map<string, GraphQLScalarType>();
  private comparisons = new Map<string, GraphQLInputObjectType>();

  readonly orderBy = new GraphQLEnumType({
    name: 'order_by',
    description: 'column ordering options',
    values: {
      asc: { description: 'in ascending order, nulls last' },
      asc_nulls_first: { description: 'in ascending order, nulls first' },
      asc_nulls_last: { description: 'in ascending order, nulls last' },
      desc: { description: 'in descending order, nulls first' },
      desc_nulls_first: { description: 'in descending order, nulls first' },
      desc_nulls_last: { description: 'in descending order, nulls last' },
    },
  });

  /** The scalar of a column: a lookup scalar for columns that reference an enum table. */
  columnScalar(column: Column): GraphQLScalarType {
    let t = this.scalars.get(column.scalar);
    if (!t) {
      t = column.enumValues ? lookupScalarType(column.scalar, column.enumValues) : scalarType(column.scalar);
      this.scalars.set(column.scalar, t);
    }
    return t;
  }

  /** `<scalar>_comparison_exp`, with the operators that make sense for that scalar. */
  comparison(column: Column): GraphQLInputObjectType {
    const name = `${column.scalar}_comparison_exp`;
    let t = this.comparisons.get(name);
    if (t) return t;
    const s = this.columnScalar(column);
    const list = new GraphQLList(new GraphQLNonNull(s));
    const fields: GraphQLInputFieldConfigMap = { _is_null: { type: GraphQLBoolean } };
    if (column.scalar !== 'json') {
      Object.assign(fields, { _eq: { type: s }, _neq: { type: s }, _in: { type: list }, _nin: { type: list } });
      if (!column.enumValues)
        Object.assign(fields, { _gt: { type: s }, _gte: { type: s }, _lt: { type: s }, _lte: { type: s } });
    }
    if (isTextLike(column.scalar)) {
      for (const op of [
        '_like',
        '_nlike',
        '_ilike',
        '_nilike',
        '_similar',
        '_nsimilar',
        '_regex',
        '_nregex',
        '_iregex',
        '_niregex',
      ]) {
        fields[op] = { type: GraphQLString };
      }
    }
    if (JSON_SCALARS.has(column.scalar)) {
      const strings = new GraphQLList(new GraphQLNonNull(GraphQLString));
      Object.assign(fields, {
        _contains: { type: s, description: 'does the column contain the given json value at the top level' },
        _contained_in: { type: s, description: 'is the column contained in the given json value' },
        _has_key: { type: GraphQLString, description: 'does the string exist as a top-level key in the column' },
        _has_keys_any: { type: strings, description: 'do any of these strings exist as top-level keys in the column' },
        _has_keys_all: { type: strings, description: 'do all of these strings exist as top-level keys in the column' },
      });
    }
    t = new GraphQLInputObjectType({
      name,
      description: `Boolean expression to compare columns of type "${column.scalar}". All fields are combined with logical 'AND'.`,
      fields,
    });
    this.comparisons.set(name, t);
    return t;
  }

  /** Int_comparison_exp, for aggregate predicates (count). */
  intComparison(): GraphQLInputObjectType {
    return this.comparison({ scalar: 'Int' } as Column);
  }
}

export const nonNullList = (t: GraphQLInputType) => new GraphQLList(new GraphQLNonNull(t));
