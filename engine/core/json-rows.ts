/**
 * A list of rows an action answers as the JSON text PostgreSQL wrote (json_agg or json_build_object
 * per row), so that the engine can put the text into the answer as it is instead of parsing it into
 * objects, completing each row and writing it out again (half of the engine's CPU on logs_query's 500
 * lines). The handler says the text's shape: a JSON array of objects, each with exactly the keys of
 * `columns` in that order, no row null, and each value of its column's kind (or null where nullable).
 *
 * Where the request's selection is not that shape (a subset, aliases, __typename, another order, a
 * GraphQL type that would write the value otherwise) the rows are read from the text and answered as
 * any other action's: the iterator parses them, which is how graphql-js and the engine's direct path
 * (compile/execute/direct-field.ts) read a list.
 */
export class JsonRows implements Iterable<unknown> {
  constructor(
    readonly text: string,
    readonly columns: readonly JsonColumn[],
  ) {}

  [Symbol.iterator](): Iterator<unknown> {
    return (JSON.parse(this.text) as unknown[])[Symbol.iterator]();
  }
}

/** A key of each row, the kind of JSON value it holds, and whether it may be null. */
export interface JsonColumn {
  key: string;
  kind: JsonKind;
  nullable: boolean;
}

/** A JSON string, a number, a number without a fraction, true or false, or any JSON value. */
export type JsonKind = 'string' | 'number' | 'integer' | 'boolean' | 'any';
