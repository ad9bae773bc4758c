/**
 * A list of rows an action answers as the JSON text PostgreSQL wrote (json_agg of json_build_object),
 * so that the engine can put the text into the answer as it is instead of parsing it into objects,
 * completing each row and writing it out again (a third of the engine's CPU on logs_query's 500
 * lines). The handler promises the text's shape: a JSON array of objects, each with exactly `keys` in
 * that order, and no row or value null.
 *
 * Where the request's selection is not that shape (a subset, aliases, __typename, another order) the
 * rows are read from the text and answered as any other action's: the iterator parses them, which is
 * how graphql-js and the engine's direct path (compile/execute/direct-field.ts) read a list.
 */
export class JsonRows implements Iterable<unknown> {
  constructor(
    readonly text: string,
    readonly keys: readonly string[],
  ) {}

  [Symbol.iterator](): Iterator<unknown> {
    return (JSON.parse(this.text) as unknown[])[Symbol.iterator]();
  }
}
