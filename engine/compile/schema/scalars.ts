import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  GraphQLFloat,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLScalarTypeConfig,
  type ValueNode,
} from 'graphql';
import { geoJsonError } from './geojson';
import { hasVariable, parseJsonLiteral } from './json-literal';
import { isUuid } from '../../core/uuid';
import type { JsonKind } from '../../core/json-rows';

/**
 * The scalars of generated schemas, named as Hasura names them. Every one checks its input, so that a
 * bad value is a `validation-failed` error naming the type, not a database error later.
 */

type Check = (value: unknown) => unknown;

function invalid(type: string, value: unknown, why = ''): never {
  throw new GraphQLError(`invalid value for ${type}: ${JSON.stringify(value)}${why ? ` (${why})` : ''}`);
}

/** Runs a check on a literal, so that its error points at the literal (and so has a path). */
function atNode<T>(node: ValueNode, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof GraphQLError && !err.nodes) throw new GraphQLError(err.message, { nodes: node });
    throw err;
  }
}

/** The engine's own scalars, whose `serialize` gives any value back as it is. */
const asIs = new WeakSet<GraphQLScalarType>();
const passThrough = (t: GraphQLScalarType) => (asIs.add(t), t);

/** The kinds of JSON value GraphQL's own scalars give back as they are. */
const BUILT_IN_AS_IS = new Map<unknown, readonly JsonKind[]>([
  [GraphQLString, ['string']],
  [GraphQLBoolean, ['boolean']],
  [GraphQLInt, ['integer']],
  [GraphQLFloat, ['number', 'integer']],
]);

/**
 * Whether a value of this JSON kind, as PostgreSQL wrote it, is already the type's answer
 * (core/json-rows.ts): any value for the engine's pass-through scalars; a string for String, a
 * boolean for Boolean, a number for Float and Int (PostgreSQL writes `12.50` where graphql-js would
 * write `12.5`: the same number to any JSON reader).
 */
export function answersAsIs(type: unknown, kind: JsonKind): boolean {
  return asIs.has(type as GraphQLScalarType) || (BUILT_IN_AS_IS.get(type)?.includes(kind) ?? false);
}

/** A scalar whose literal is a string or number, checked by `check` and passed on as it is. */
function scalar(name: string, description: string, check: Check): GraphQLScalarType {
  const literal = (node: ValueNode): unknown =>
    atNode(node, () => {
      switch (node.kind) {
        case Kind.STRING:
          return check(node.value);
        case Kind.INT:
          return check(
            Number(node.value) > Number.MAX_SAFE_INTEGER || Number(node.value) < -Number.MAX_SAFE_INTEGER
              ? node.value
              : Number(node.value),
          );
        case Kind.FLOAT:
          return check(Number(node.value));
        case Kind.BOOLEAN:
          return check(node.value);
        default:
          return invalid(name, (node as { value?: unknown }).value ?? node.kind);
      }
    });
  const config: GraphQLScalarTypeConfig<unknown, unknown> = {
    name,
    description,
    serialize: (v) => v,
    parseValue: check,
    parseLiteral: literal,
  };
  return passThrough(new GraphQLScalarType(config));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const INTEGER = /^\s*[-+]?\d+\s*$/;
/** An ltree label path: labels of letters, digits, `_` and `-`, joined by dots (or none: the empty path). */
const LTREE = /^(?:[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*)?$/u;

function validDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

const string =
  (type: string): Check =>
  (v) =>
    typeof v === 'string' ? v : invalid(type, v, 'expected a string');

const checks: Record<string, [string, Check]> = {
  uuid: ['A UUID', (v) => (typeof v === 'string' && isUuid(v) ? v.toLowerCase() : invalid('uuid', v))],
  bigint: [
    'A 64-bit integer (a number, or a string of digits beyond 2^53)',
    (v) => {
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      if (typeof v === 'string' && INTEGER.test(v)) return v.trim();
      return invalid('bigint', v);
    },
  ],
  smallint: [
    'A 16-bit integer',
    (v) => (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 32767 ? v : invalid('smallint', v)),
  ],
  numeric: [
    'An arbitrary-precision number (a number or a numeric string)',
    (v) => {
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'string' && (NUMERIC.test(v) || /^(NaN|-?Infinity)$/.test(v))) return v.trim();
      return invalid('numeric', v);
    },
  ],
  float8: [
    'A double-precision number',
    (v) => {
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && (NUMERIC.test(v) || /^(NaN|-?Infinity)$/.test(v))) return v.trim();
      return invalid('float8', v);
    },
  ],
  money: [
    'An amount of money',
    (v) => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? v : invalid('money', v)),
  ],
  date: [
    'A calendar date, YYYY-MM-DD',
    (v) => {
      const m = typeof v === 'string' ? DATE.exec(v) : null;
      return m && validDate(m[1], m[2], m[3]) ? v : invalid('date', v, 'expected YYYY-MM-DD');
    },
  ],
  timestamp: ['A date and time without time zone, ISO 8601', timestampCheck('timestamp')],
  timestamptz: ['A date and time with time zone, ISO 8601', timestampCheck('timestamptz')],
  time: ['A time of day', (v) => (typeof v === 'string' && TIME.test(v) ? v : invalid('time', v))],
  timetz: ['A time of day with time zone', (v) => (typeof v === 'string' && TIME.test(v) ? v : invalid('timetz', v))],
  citext: ['Case-insensitive text', string('citext')],
  interval: ['A time interval (PostgreSQL syntax)', string('interval')],
  bytea: ['Binary data, hex (\\x...)', string('bytea')],
  inet: ['An IP address', string('inet')],
  raster: [
    'A PostGIS raster, as hex-encoded well-known binary',
    (v) => (typeof v === 'string' && /^(?:[0-9a-fA-F]{2})+$/.test(v) ? v : invalid('raster', v, 'expected hex WKB')),
  ],
  ltree: [
    'A label path of the ltree extension, e.g. Top.Science.Astronomy',
    (v) => (typeof v === 'string' && LTREE.test(v) ? v : invalid('ltree', v, 'expected labels joined by dots')),
  ],
  lquery: ['A pattern matching ltree label paths (ltree extension), e.g. *.Astronomy.*', string('lquery')],
  ltxtquery: ['A full-text pattern over ltree labels (ltree extension), e.g. Astro* & !Pictures', string('ltxtquery')],
};

function timestampCheck(type: string): Check {
  return (v) => {
    const m = typeof v === 'string' ? TIMESTAMP.exec(v) : null;
    if (!m || !validDate(m[1], m[2], m[3])) return invalid(type, v, 'expected ISO 8601, e.g. 2026-01-31T23:59:59');
    if (m[4] !== undefined && (Number(m[4]) > 24 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 60))
      return invalid(type, v, 'time out of range');
    return v;
  };
}

/**
 * geometry and geography (PostGIS): a GeoJSON geometry object, as a variable's JSON or as a GraphQL
 * object literal, checked as Hasura checks it (type, coordinates' shape, closed rings), so that a
 * malformed value is `validation-failed` before any SQL runs.
 */
function geoJsonScalar(name: 'geometry' | 'geography'): GraphQLScalarType {
  const check = (v: unknown) => {
    const why = geoJsonError(v);
    return why ? invalid(name, v, why) : v;
  };
  return new GraphQLScalarType({
    name,
    description: `A PostGIS ${name} value, as a GeoJSON geometry object`,
    serialize: (v) => v,
    parseValue: check,
    // Validation parses without variables: a literal holding some is checked when the plan runs, filled.
    parseLiteral: (node, vars) =>
      atNode(node, () => (!vars && hasVariable(node) ? null : check(parseJsonLiteral(node, vars)))),
  });
}

/**
 * json and jsonb: any JSON value, passed through as it is (graphql-scalars' JSON, whose whole package
 * took 50 ms of every start-up to load for these few lines), literals read by parseJsonLiteral.
 */
const jsonScalar = (name: string, description: string) =>
  passThrough(
    new GraphQLScalarType({
      name,
      description,
      serialize: (value) => value,
      parseValue: (value) => value,
      parseLiteral: (node, vars) => parseJsonLiteral(node, vars),
      extensions: { codegenScalarType: 'any' },
    }),
  );

const cache = new Map<string, GraphQLScalarType>([
  ['geometry', geoJsonScalar('geometry')],
  ['geography', geoJsonScalar('geography')],
  ['Int', GraphQLInt],
  ['Float', GraphQLFloat],
  ['String', GraphQLString],
  ['Boolean', GraphQLBoolean],
  ['jsonb', jsonScalar('jsonb', 'A JSON value (stored as jsonb)')],
  ['json', jsonScalar('json', 'A JSON value')],
]);

/** The scalar type of that name; unknown names become pass-through string scalars. */
export function scalarType(name: string): GraphQLScalarType {
  let t = cache.get(name);
  if (!t) {
    const [description, check] = checks[name] ?? [`A value of PostgreSQL type ${name}`, (v: unknown) => v];
    t = scalar(name, description, check);
    cache.set(name, t);
  }
  return t;
}

/** A value of an enum table (`is_enum: true`), and the comment that describes it. */
export interface EnumTableValue {
  value: string;
  comment: string | null;
}

/**
 * The GraphQL enum of an enum table (`is_enum: true`), as Hasura names it (`<table>_enum`): introspection
 * shows kind ENUM with the table's values, each described by its comment, so that codegen writes a
 * real enum. The one leniency: a string literal holding a value ("Open") is accepted where the enum is
 * expected, as the bare name (Open) is, because the platform's own examples write them so. Anything
 * else is refused with the list of allowed values. Its values bind as text, like a scalar's.
 */
export class EnumTableType extends GraphQLEnumType {
  constructor(name: string, values: readonly EnumTableValue[]) {
    super({
      name,
      values: Object.fromEntries(values.map((v) => [v.value, { value: v.value, description: v.comment }])),
    });
  }

  private refuse(value: unknown, node?: ValueNode): never {
    const allowed = this.getValues().map((v) => v.name);
    const message = `unexpected value ${JSON.stringify(value)} for ${this.name}; allowed values: ${allowed.join(', ')}`;
    throw new GraphQLError(message, { nodes: node });
  }

  override parseValue(value: unknown): unknown {
    return typeof value === 'string' && this.getValue(value) ? value : this.refuse(value);
  }

  override parseLiteral(node: ValueNode): unknown {
    const value =
      node.kind === Kind.STRING || node.kind === Kind.ENUM
        ? node.value
        : ((node as { value?: unknown }).value ?? node.kind);
    return typeof value === 'string' && this.getValue(value) ? value : this.refuse(value, node);
  }
}

/** Whether a type is an enum table's enum: the planner binds its values as text parameters, as a scalar's. */
export const isEnumTableType = (type: unknown): type is EnumTableType => type instanceof EnumTableType;
