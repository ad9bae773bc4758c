import { and, TRUE } from './bool-exp';
import { MetadataError } from './load';
import type { BoolExp, Column, Table, ValueSource } from './model-types';
import {
  castTarget,
  isColumnOperator,
  isCompareOp,
  objectOperands,
  operandSqlType,
  operator,
  type CompareOp,
} from './operators';

interface Where {
  file: string;
  where: string;
  tables?: Map<string, Table>;
  /** The table the permission is on, which `["$", column]` names; `used` once such a reference is read. */
  root?: { table: Table; used: boolean };
}

const SESSION_VARIABLE = /^x-hasura-/i;

/** A permission value: a session variable name (`X-Hasura-Tenant-Id`) or a literal. */
export function permissionValue(value: unknown): ValueSource {
  if (typeof value === 'string' && SESSION_VARIABLE.test(value)) return { from: 'session', name: value.toLowerCase() };
  return { from: 'literal', value };
}

/** Hasura's other spellings of an operator: `$`-prefixed (`$eq`, `$and`), and `_ne`/`_cneq` beside `_neq`/`_cne`. */
const ALIASES: Record<string, string> = { _ne: '_neq', _cneq: '_cne' };

/** A metadata key in the engine's spelling: `$gte` is `_gte`, `$ne` and `_ne` are `_neq`. */
export function metadataKey(key: string): string {
  const underscored = key.startsWith('$') ? `_${key.slice(1)}` : key;
  return ALIASES[underscored] ?? underscored;
}

/**
 * A column's comparisons: an object of operators, or Hasura's shorthand for equality, a bare value
 * (`{id: X-Hasura-User-Id}`, `{published: true}`) meaning `{_eq: value}`.
 */
/** A column as `_cast` shows it: compared as a value of `scalar`/`sqlType`, cast along `cast` in SQL. */
interface CastView {
  scalar: string;
  sqlType: string;
  cast: string[];
}

/** One comparison with a value, or with an object operand (`_st_d_within: {distance, from}`) field by field. */
function valueComparison(column: Column, op: CompareOp, value: unknown, at: Where, view?: CastView): BoolExp {
  const seen = view ?? column;
  const cast = view ? { cast: view.cast } : {};
  if (operator(op).operand === 'object') {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new MetadataError(at.file, at.where, `expected an object operand for "${op}"`);
    const fields = value as Record<string, unknown>;
    const operands = objectOperands<ValueSource>(
      op,
      seen,
      (name) => (Object.hasOwn(fields, name) ? permissionValue(fields[name]) : undefined),
      (v) => ({ from: 'literal', value: v }),
    );
    return {
      kind: 'compare',
      column,
      op,
      value: { source: { from: 'literal', value: null }, sqlType: 'boolean' },
      operands,
      ...cast,
    };
  }
  const source = Array.isArray(value)
    ? { from: 'list' as const, items: value.map(permissionValue) }
    : permissionValue(value);
  return { kind: 'compare', column, op, value: { source, ...operandSqlType(op, seen.sqlType) }, ...cast };
}

/** `_cast: {geography: {...}}` in a permission: the comparisons inside, of the column cast to each type. */
function castComparisons(column: Column, casts: unknown, at: Where, table: Table, view?: CastView): BoolExp[] {
  if (!casts || typeof casts !== 'object' || Array.isArray(casts))
    throw new MetadataError(at.file, at.where, 'expected an object of types to cast to');
  return Object.entries(casts).map(([name, ops]) => {
    const target = castTarget((view ?? column).scalar, name);
    if (!target) throw new MetadataError(at.file, `${at.where}.${name}`, `cannot cast "${column.name}" to ${name}`);
    const next = { ...target, cast: [...(view?.cast ?? []), target.sqlType] };
    return columnComparison(column, ops, { ...at, where: `${at.where}.${name}` }, table, next);
  });
}

function columnComparison(column: Column, ops: unknown, at: Where, table: Table, view?: CastView): BoolExp {
  if (Array.isArray(ops))
    throw new MetadataError(at.file, at.where, 'a list needs an operator (_in, _nin, ...), not the _eq shorthand');
  if (!ops || typeof ops !== 'object') ops = { _eq: ops };
  const items: BoolExp[] = [];
  for (const [written, value] of Object.entries(ops as object)) {
    const op = metadataKey(written);
    if (!isCompareOp(op)) throw new MetadataError(at.file, `${at.where}.${written}`, `unknown operator "${written}"`);
    const here = { ...at, where: `${at.where}.${written}` };
    if (op === '_cast') {
      items.push(...castComparisons(column, value, here, table, view));
      continue;
    }
    if (isColumnOperator(op) && view) throw new MetadataError(at.file, here.where, `${op} cannot be used inside _cast`);
    if (isColumnOperator(op)) {
      items.push(columnOperand(table, column, op, value, { ...at, where: `${at.where}.${written}` }));
      continue;
    }
    items.push(valueComparison(column, op, value, here, view));
  }
  return and(...items);
}

/**
 * The operand of a column operator (`_ceq`, ...): a column of the same table (`"price"` or `["price"]`),
 * or of the table the permission is on (`["$", "price"]`), of the compared column's own type.
 */
function columnOperand(table: Table, column: Column, op: CompareOp, value: unknown, at: Where): BoolExp {
  const path = Array.isArray(value) ? value : [value];
  const root = path.length === 2 && path[0] === '$';
  const name = path[path.length - 1];
  const from = root ? at.root?.table : table;
  if (!from || typeof name !== 'string' || path.length > 2 || (path.length === 2 && !root))
    throw new MetadataError(at.file, at.where, 'expected a column name, or ["$", column] for the root table');
  const other = from.columnByName.get(name);
  if (!other) throw new MetadataError(at.file, at.where, `"${name}" is not a column of "${from.name}"`);
  if (other.scalar !== column.scalar)
    throw new MetadataError(
      at.file,
      at.where,
      `cannot compare column "${column.name}" (${column.scalar}) with "${name}" (${other.scalar})`,
    );
  if (root) at.root!.used = true;
  return { kind: 'compareColumn', column, op, other, root };
}

/**
 * A permission's boolean expression (Hasura's syntax, column and relationship names as in the
 * database) to IR. Relationships in permissions are not filtered by the target's own permissions.
 * An expression that names the root table (`["$", column]`) is wrapped in a `scope`, the row it is
 * applied to.
 */
export function parsePermissionBoolExp(table: Table, exp: unknown, at: Where): BoolExp {
  if (!at.root) {
    const root = { table, used: false };
    const item = parsePermissionBoolExp(table, exp, { ...at, root });
    return root.used ? { kind: 'scope', item } : item;
  }
  if (!exp || typeof exp !== 'object' || Array.isArray(exp))
    throw new MetadataError(at.file, at.where, 'expected a boolean expression object');
  const items: BoolExp[] = [];
  for (const [written, v] of Object.entries(exp)) {
    const here = { ...at, where: `${at.where}.${written}` };
    const k = written.startsWith('$') ? metadataKey(written) : written;
    if (k === '_and' || k === '_or') {
      if (!Array.isArray(v)) throw new MetadataError(here.file, here.where, 'expected a list');
      const parts = v.map((e, i) => parsePermissionBoolExp(table, e, { ...at, where: `${here.where}[${i}]` }));
      items.push(k === '_and' ? and(...parts) : { kind: 'or', items: parts });
    } else if (k === '_not') {
      items.push({ kind: 'not', item: parsePermissionBoolExp(table, v, here) });
    } else if (k === '_exists') {
      const { _table, _where } = (v ?? {}) as { _table?: { name: string; schema?: string } | string; _where?: unknown };
      if (!_table) throw new MetadataError(here.file, here.where, '_exists needs _table');
      const tref =
        typeof _table === 'string'
          ? { schema: 'public', name: _table }
          : { schema: _table.schema ?? 'public', name: _table.name };
      const target = at.tables?.get(`${tref.schema}.${tref.name}`);
      if (!target)
        throw new MetadataError(here.file, here.where, `table "${tref.schema}"."${tref.name}" is not tracked`);
      items.push({
        kind: 'exists',
        table: target,
        where: parsePermissionBoolExp(target, _where ?? {}, { ...at, where: `${here.where}._where` }),
      });
    } else if (table.columnByName.has(k)) {
      items.push(columnComparison(table.columnByName.get(k)!, v, here, table));
    } else if (table.relByName.has(k)) {
      const rel = table.relByName.get(k)!;
      items.push({ kind: 'relationship', rel, where: parsePermissionBoolExp(rel.target, v, here) });
    } else {
      throw new MetadataError(here.file, here.where, `"${written}" is not a column or relationship of "${table.name}"`);
    }
  }
  return items.length ? and(...items) : TRUE;
}

/** Column presets (`set`) of insert and update permissions. */
export function parsePresets(table: Table, set: Record<string, unknown>, at: Where): Map<string, ValueSource> {
  const out = new Map<string, ValueSource>();
  for (const [col, value] of Object.entries(set)) {
    if (!table.columnByName.has(col))
      throw new MetadataError(at.file, `${at.where}.${col}`, `column "${col}" does not exist in "${table.name}"`);
    out.set(col, permissionValue(value));
  }
  return out;
}
