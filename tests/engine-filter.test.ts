import type { TestServer } from './support/server';
import { startFixtureServer } from './support/fixture';

/**
 * `where`: every comparison operator, boolean connectives, filters through relationships, aggregate
 * predicates and lookup-table values, each case sent once as a literal and once as a variable.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server?.close());

/** An enum value: bare in a GraphQL literal, a string in JSON variables. */
class EnumValue {
  constructor(readonly value: string) {}
  toJSON(): string {
    return this.value;
  }
}
const enumValue = (v: string) => new EnumValue(v);

/** A JSON value written as a GraphQL literal (object keys bare, strings quoted, enum values bare). */
function literal(v: unknown): string {
  if (v instanceof EnumValue) return v.value;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${literal(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

const ids = (list: number[]) => list.map((id) => ({ id }));

/** Authors matching `where`, by id, asked both ways; both answers must be `expected`. */
async function expectAuthors(where: Record<string, unknown>, expected: number[]): Promise<void> {
  const lit = await server.gql(`{ authors(where: ${literal(where)}, order_by: {id: asc}) { id } }`);
  expect(lit.body).toEqual({ data: { authors: ids(expected) } });
  const vars = await server.gql('query ($w: authors_bool_exp) { authors(where: $w, order_by: {id: asc}) { id } }', {
    w: where,
  });
  expect(vars.body).toEqual({ data: { authors: ids(expected) } });
}

// Authors: 1 Alice Archer (GB, rating 4.5), 2 Bob Brown (US, 3.25), 3 Carol Chen (US, no rating, no
// birth date), 4 Dan Dubois (FR, 5), 5 eve evans (no country, 2.0).
describe('comparison operators on columns', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['_eq', { id: { _eq: 2 } }, [2]],
    ['_neq', { id: { _neq: 2 } }, [1, 3, 4, 5]],
    ['_neq skips NULLs', { rating: { _neq: 5 } }, [1, 2, 5]],
    ['_gt on int', { id: { _gt: 3 } }, [4, 5]],
    ['_gt on numeric', { rating: { _gt: 3.25 } }, [1, 4]],
    ['_gt on a numeric string', { rating: { _gt: '3.25' } }, [1, 4]],
    ['_lt', { id: { _lt: 3 } }, [1, 2]],
    ['_gte', { id: { _gte: 3 } }, [3, 4, 5]],
    ['_lte', { rating: { _lte: 3.25 } }, [2, 5]],
    ['_in', { id: { _in: [1, 3, 9] } }, [1, 3]],
    ['_in with an empty list', { id: { _in: [] } }, []],
    ['_nin', { id: { _nin: [1, 3] } }, [2, 4, 5]],
    ['_nin with an empty list', { id: { _nin: [] } }, [1, 2, 3, 4, 5]],
    ['_is_null true', { rating: { _is_null: true } }, [3]],
    ['_is_null false', { rating: { _is_null: false } }, [1, 2, 4, 5]],
    ['date _lt', { birth_date: { _lt: '1975-01-01' } }, [1, 4]],
    ['timestamptz _gte in UTC', { created_at: { _gte: '2024-03-01T10:00:00Z' } }, [3, 4, 5]],
    ['timestamptz _gte with an offset', { created_at: { _gte: '2024-03-01T11:00:00+01:00' } }, [3, 4, 5]],
    ['two operators on one column are combined with AND', { id: { _gt: 1, _lt: 4 } }, [2, 3]],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });
});

describe('text operators', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['_like', { name: { _like: '%Brown' } }, [2]],
    ['_like is case sensitive', { name: { _like: 'eve%' } }, [5]],
    ['_nlike', { name: { _nlike: '%n' } }, [1, 4, 5]],
    ['_ilike', { name: { _ilike: 'EVE%' } }, [5]],
    ['_nilike', { name: { _nilike: '%E%' } }, [2, 4]],
    ['_similar', { name: { _similar: '(Alice|Bob)%' } }, [1, 2]],
    ['_nsimilar', { name: { _nsimilar: '%n' } }, [1, 4, 5]],
    ['_regex', { name: { _regex: '^[A-Z][a-z]+ B' } }, [2]],
    ['_nregex', { name: { _nregex: 'n$' } }, [1, 4, 5]],
    ['_iregex', { name: { _iregex: '^EVE' } }, [5]],
    ['_niregex', { name: { _niregex: '^(eve|bob)' } }, [1, 3, 4]],
    ['text _gt compares as text', { country_code: { _gt: 'GB' } }, [2, 3]],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });
});

describe('jsonb operators', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['_contains an array element', { tags: { _contains: ['modern'] } }, [2, 5]],
    ['_contains an object', { profile: { _contains: { twitter: '@dan' } } }, [4]],
    ['_contains a nested value', { profile: { _contains: { langs: ['fr'] } } }, [1]],
    ['_contained_in', { tags: { _contained_in: ['modern', 'classic', 'british'] } }, [1, 2, 3, 5]],
    ['_has_key', { profile: { _has_key: 'twitter' } }, [1, 4]],
    ['_has_keys_any', { profile: { _has_keys_any: ['site', 'twitter'] } }, [1, 3, 4]],
    ['_has_keys_all', { profile: { _has_keys_all: ['twitter', 'langs'] } }, [1]],
    ['_eq on jsonb', { tags: { _eq: [] } }, [3]],
    ['_is_null on jsonb', { profile: { _is_null: true } }, [2, 5]],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });
});

describe('_and, _or, _not', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['_and', { _and: [{ id: { _gt: 1 } }, { id: { _lt: 4 } }] }, [2, 3]],
    ['_or', { _or: [{ id: { _eq: 1 } }, { rating: { _is_null: true } }] }, [1, 3]],
    ['_not', { _not: { id: { _in: [1, 2] } } }, [3, 4, 5]],
    ['_not of a comparison with NULL keeps SQL semantics', { _not: { country_code: { _eq: 'US' } } }, [1, 4]],
    [
      'nested _or inside _and inside _not',
      { _not: { _and: [{ country_code: { _eq: 'US' } }, { _or: [{ id: { _eq: 2 } }, { id: { _eq: 4 } }] }] } },
      [1, 3, 4, 5],
    ],
    ['an empty object matches every row', {}, [1, 2, 3, 4, 5]],
    ['an empty _and matches every row', { _and: [] }, [1, 2, 3, 4, 5]],
    ['an empty _or matches no row', { _or: [] }, []],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });
});

describe('filters through relationships have exists semantics', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['some book of the author matches, each author once', { books: { genre: { _eq: 'fiction' } } }, [1, 2]],
    ['an empty filter on an array relationship: has rows', { books: {} }, [1, 2, 4]],
    ['_not of an array relationship: has no matching rows', { _not: { books: { pages: { _gt: 100 } } } }, [3, 5]],
    ['a manual object relationship', { country: { name: { _like: 'United%' } } }, [1, 2, 3]],
    ['two levels: books with an ebook edition', { books: { editions: { format: { _eq: 'ebook' } } } }, [2]],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });

  test('object relationship by foreign key, and array relationship by manual configuration', async () => {
    const books = await server.gql(
      '{ books(where: {author: {country_code: {_eq: "US"}}}, order_by: {title: asc}) { title } }',
    );
    expect(books.body).toEqual({ data: { books: [{ title: 'Bright Nights' }, { title: 'Quiet Verses' }] } });
    const countries = await server.gql(
      '{ countries(where: {authors: {books: {pages: {_gt: 400}}}}) { code } none: countries(where: {_not: {authors: {}}}) { code } }',
    );
    expect(countries.body).toEqual({ data: { countries: [{ code: 'US' }], none: [{ code: 'JP' }] } });
  });
});

describe('aggregate predicates over array relationships', () => {
  test.each<[string, Record<string, unknown>, number[]]>([
    ['count _gt', { books_aggregate: { count: { predicate: { _gt: 1 } } } }, [1, 2]],
    ['count _eq 0', { books_aggregate: { count: { predicate: { _eq: 0 } } } }, [3, 5]],
    [
      'count with a filter',
      { books_aggregate: { count: { predicate: { _gt: 1 }, filter: { pages: { _gt: 100 } } } } },
      [1],
    ],
    [
      'count of distinct arguments',
      { books_aggregate: { count: { arguments: [enumValue('genre')], distinct: true, predicate: { _eq: 2 } } } },
      [1, 2],
    ],
    [
      'count of a nullable column skips NULLs',
      { books_aggregate: { count: { arguments: [enumValue('price')], predicate: { _eq: 2 } } } },
      [1, 2],
    ],
    [
      'combined with a column filter',
      { books_aggregate: { count: { predicate: { _gte: 1 } } }, rating: { _gt: 4 } },
      [1, 4],
    ],
  ])('%s', async (_name, where, expected) => {
    await expectAuthors(where, expected);
  });
});

describe('lookup-table (is_enum) columns', () => {
  const titles = (list: string[]) => ({ data: { books: list.map((title) => ({ title })) } });

  test('accept bare enum values and strings alike', async () => {
    const bare = await server.gql('{ books(where: {genre: {_eq: poetry}}, order_by: {title: asc}) { title } }');
    const quoted = await server.gql('{ books(where: {genre: {_eq: "poetry"}}, order_by: {title: asc}) { title } }');
    expect(bare.body).toEqual(titles(['Autumn Poems', 'Quiet Verses']));
    expect(quoted.body).toEqual(bare.body);
    const mixed = await server.gql(
      '{ books(where: {genre: {_in: [nonfiction, "poetry"]}}, order_by: {title: asc}) { title } }',
    );
    expect(mixed.body).toEqual(titles(['Autumn Poems', 'Quiet Verses', 'Second Thoughts']));
    const neq = await server.gql('{ books(where: {genre: {_neq: fiction}}, order_by: {title: asc}) { title genre } }');
    expect(neq.body).toEqual({
      data: {
        books: [
          { title: 'Autumn Poems', genre: 'poetry' },
          { title: 'Quiet Verses', genre: 'poetry' },
          { title: 'Second Thoughts', genre: 'nonfiction' },
        ],
      },
    });
  });

  test('accept values from variables', async () => {
    const res = await server.gql(
      'query ($g: genres_enum, $gs: [genres_enum!]) { a: books(where: {genre: {_eq: $g}}) { title } b: books(where: {genre: {_nin: $gs}}, order_by: {title: asc}) { title } }',
      { g: 'nonfiction', gs: ['fiction', 'poetry'] },
    );
    expect(res.body).toEqual({ data: { a: [{ title: 'Second Thoughts' }], b: [{ title: 'Second Thoughts' }] } });
  });

  test('an unknown value is refused with the allowed values', async () => {
    const lit = await server.gql('{ books(where: {genre: {_eq: horror}}) { title } }');
    expect(lit.body).toEqual({
      errors: [
        {
          message: 'unexpected value "horror" for genres_enum; allowed values: fiction, nonfiction, poetry',
          extensions: { path: '$.selectionSet.books.args.where.genre._eq', code: 'validation-failed' },
        },
      ],
    });
    const vars = await server.gql('query ($g: genres_enum) { books(where: {genre: {_eq: $g}}) { title } }', {
      g: 'horror',
    });
    expect(vars.body).toEqual({
      errors: [
        {
          message:
            'Variable "$g" got invalid value "horror"; unexpected value "horror" for genres_enum; allowed values: fiction, nonfiction, poetry',
          extensions: { path: '$.variableValues', code: 'validation-failed' },
        },
      ],
    });
  });

  test('lookup tables answer with their rows', async () => {
    const res = await server.gql(
      '{ genres(order_by: {value: asc}) { value comment books_aggregate { aggregate { count } } } }',
    );
    expect(res.body).toEqual({
      data: {
        genres: [
          { value: 'fiction', comment: 'Novels and stories', books_aggregate: { aggregate: { count: 3 } } },
          { value: 'nonfiction', comment: 'Facts', books_aggregate: { aggregate: { count: 1 } } },
          { value: 'poetry', comment: null, books_aggregate: { aggregate: { count: 2 } } },
        ],
      },
    });
  });
});

describe('bad filter values are validation errors', () => {
  test('a wrong type and a null operand', async () => {
    const wrong = await server.gql('{ authors(where: {id: {_eq: "one"}}) { id } }');
    expect(wrong.body).toEqual({
      errors: [
        {
          message: 'Int cannot represent non-integer value: "one"',
          extensions: { path: '$.selectionSet.authors.args.where.id._eq', code: 'validation-failed' },
        },
      ],
    });
    const uuid = await server.gql('{ books(where: {id: {_eq: "not-a-uuid"}}) { id } }');
    expect(uuid.body).toEqual({
      errors: [
        {
          message: 'invalid value for uuid: "not-a-uuid"',
          extensions: { path: '$.selectionSet.books.args.where.id._eq', code: 'validation-failed' },
        },
      ],
    });
  });
});
