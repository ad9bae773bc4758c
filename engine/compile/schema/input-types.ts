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
import { castTarget, operator, operatorsFor, type CompareOp, type OperandType } from '../model/operators';
import { CAST_TARGETS } from '../model/scalar-types';
import { EnumTableType, scalarType } from './scalars';

/** Input types shared by every table of a schema: column scalars, comparison expressions, order_by. */
export class SharedInputs {
  private scalars = new Map<string, GraphQLScalarType | EnumTableType>();
  private comparisons = new Map<string, GraphQLInputObjectType>();
  private operandObjects = new Map<string, GraphQLInputObjectType>();

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
    // Fields as a thunk: `_cast` makes the types refer to each other (geometry to geography and back).
    const fields = (): GraphQLInputFieldConfigMap => {
      const out: GraphQLInputFieldConfigMap = {};
      for (const [op, { operand, description }] of operatorsFor(column))
        out[op] = { type: this.operandType(operand, this.columnScalar(column), op, column), description };
      return out;
    };
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

  /** `st_d_within_input` and the like: the input object of an `object` operand, named by the table entry. */
  private operandObject(op: CompareOp, column: Column): GraphQLInputObjectType {
    const spec = operator(op).object!(column);
    let t = this.operandObjects.get(spec.name);
    if (t) return t;
    const fields: GraphQLInputFieldConfigMap = {};
    for (const f of spec.fields) {
      const type =
        f.type === 'column' ? this.columnScalar(column) : scalarType(f.type === 'geometry' ? 'geometry' : f.type);
      fields[f.name] = { type: f.required ? new GraphQLNonNull(type) : type, defaultValue: f.default };
    }
    t = new GraphQLInputObjectType({ name: spec.name, fields });
    this.operandObjects.set(spec.name, t);
    return t;
  }

  /** `<scalar>_cast_exp`: per type the column may be cast to, that type's comparison expression. */
  private castExp(column: Column): GraphQLInputObjectType {
    const name = `${column.scalar}_cast_exp`;
    let t = this.operandObjects.get(name);
    if (t) return t;
    const fields: GraphQLInputFieldConfigMap = {};
    for (const target of Object.keys(CAST_TARGETS[column.scalar] ?? {}))
      fields[target] = { type: this.comparison(castTarget(column.scalar, target) as Column) };
    t = new GraphQLInputObjectType({ name, fields });
    this.operandObjects.set(name, t);
    return t;
  }

  /** The GraphQL type of an operator's operand, compared with a column of scalar `s`. */
  private operandType(
    operand: OperandType,
    s: GraphQLScalarType | EnumTableType,
    op: CompareOp,
    column: Column,
  ): GraphQLInputType {
    switch (operand) {
      case 'object':
        return this.operandObject(op, column);
      case 'cast':
        return this.castExp(column);
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
      case 'lqueryList':
        return nonNullList(GraphQLString);
      case 'lquery':
      case 'ltxtquery':
        return scalarType(operand);
    }
  }
}

export const nonNullList = (t: GraphQLInputType) => new GraphQLList(new GraphQLNonNull(t));
