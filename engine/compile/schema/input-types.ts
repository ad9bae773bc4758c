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
import type { Column } from '../model/model-types';
import { operatorsFor, type OperandType } from '../model/operators';
import { EnumTableType, scalarType } from './scalars';

/** Input types shared by every table of a schema: column scalars, comparison expressions, order_by. */
export class SharedInputs {
  private scalars = new Map<string, GraphQLScalarType | EnumTableType>();
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

  /** The type of a column's values: its scalar, or the enum of the enum table it references. */
  columnScalar(column: Column): GraphQLScalarType | EnumTableType {
    let t = this.scalars.get(column.scalar);
    if (!t) {
      t = column.enumTable ? new EnumTableType(column.scalar, column.enumTable.enumValues) : scalarType(column.scalar);
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
    const fields: GraphQLInputFieldConfigMap = {};
    for (const [op, { operand, description }] of operatorsFor(column))
      fields[op] = { type: this.operandType(operand, s), description };
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

  /** The GraphQL type of an operator's operand, compared with a column of scalar `s`. */
  private operandType(operand: OperandType, s: GraphQLScalarType | EnumTableType): GraphQLInputType {
    switch (operand) {
      case 'column':
        return s;
      case 'columnList':
        return nonNullList(s);
      case 'boolean':
        return GraphQLBoolean;
      case 'string':
      case 'columnName': // another column's GraphQL name, checked against the role's columns when planning
        return GraphQLString;
      case 'stringList':
        return nonNullList(GraphQLString);
    }
  }
}

export const nonNullList = (t: GraphQLInputType) => new GraphQLList(new GraphQLNonNull(t));
