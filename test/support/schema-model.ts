/**
 * A schema-drift checker that needs neither Prisma's schema engine nor a network:
 * schema.prisma is read with @prisma/prisma-schema-wasm (the same PSL build the
 * Prisma CLI bundles) and a database is read from pg_catalog. Both sides are
 * reduced to one normalized `SchemaDescription`, so they can be compared with
 * `toEqual` and listed with `findDifferences`.
 *
 * Only what schema.prisma can express is described: tables and enums of one
 * PostgreSQL schema, columns (type, nullability, default), primary keys,
 * unique and plain indexes, foreign keys. Triggers, functions, sequences,
 * CHECK constraints and `_prisma_migrations` are not looked at.
 */
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import pg from 'pg';

export interface SchemaDescription {
  /** Enum type name → labels, in declaration order. */
  enums: Record<string, string[]>;
  tables: Record<string, TableDescription>;
}

export interface TableDescription {
  columns: Record<string, ColumnDescription>;
  /** e.g. `orgs_pkey (id)` */
  primaryKey: string | null;
  /** Sorted lines such as `users_org_id_email_key (org_id, email)`. */
  uniqueIndexes: string[];
  /** Sorted lines such as `tasks_agent_id_created_at_idx (agent_id, created_at DESC)`. */
  indexes: string[];
  /** Sorted lines such as `users_org_id_fkey (org_id) REFERENCES orgs (id) ON DELETE CASCADE ON UPDATE CASCADE`. */
  foreignKeys: string[];
}

export interface ColumnDescription {
  /** PostgreSQL's `format_type` spelling (`text`, `timestamp(3) with time zone`), or `enum <name>`. */
  type: string;
  nullable: boolean;
  /** `null`, `now()`, `autoincrement()`, `literal "<value>"`, `array default` or `expression <sql>`. */
  default: string | null;
}

// ---------------------------------------------------------------------------
// schema.prisma side
// ---------------------------------------------------------------------------

interface Named {
  name: string;
  dbName?: string | null;
}

interface DmmfField extends Named {
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  default?: unknown;
  nativeType?: [string, string[]] | null;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel extends Named {
  schema?: string | null;
  fields: DmmfField[];
}

interface DmmfEnum extends Named {
  values: Named[];
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc' }[];
}

interface Datamodel {
  enums: DmmfEnum[];
  models: DmmfModel[];
  indexes: DmmfIndex[];
}

/** PostgreSQL's NAMEDATALEN - 1; Prisma's default constraint names are cut to fit it. */
const MAX_IDENTIFIER_LENGTH = 63;

const dbName = (x: Named): string => x.dbName ?? x.name;

/** Parses schema.prisma into Prisma's datamodel (DMMF), failing with Prisma's own validation errors. */
export function readDatamodel(schemaText: string): Datamodel {
  try {
    const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schemaText]] })));
    return dmmf.datamodel as Datamodel;
  } catch (err) {
    const message = String((err as Error).message ?? err).replace(/\u001b\[[0-9;]*m/g, '');
    throw new Error(`schema.prisma could not be read: ${message}`);
  }
}

/** What the database should look like after the migrations, according to schema.prisma. */
export function describePrismaSchema(schemaText: string): SchemaDescription {
  const datamodel = readDatamodel(schemaText);
  rejectUnsupported(schemaText, datamodel);
  const enums = Object.fromEntries(datamodel.enums.map((e) => [dbName(e), e.values.map(dbName)]));
  const tables = Object.fromEntries(datamodel.models.map((model) => [dbName(model), describeModel(model, datamodel)]));
  return { enums: sortKeys(enums), tables: sortKeys(tables) };
}

/** Fails loudly on schema features this checker would describe wrongly, rather than guessing. */
function rejectUnsupported(schemaText: string, datamodel: Datamodel): void {
  const unsupported = (what: string) =>
    new Error(`The schema drift check does not support ${what}; extend test/support/schema-model.ts`);
  if (/@relation\([^)]*\bmap\s*:/.test(schemaText))
    throw unsupported('@relation(map: ...) (DMMF does not expose foreign key names)');
  for (const model of datamodel.models) {
    if (model.schema) throw unsupported(`@@schema (model ${model.name})`);
    for (const field of model.fields) {
      if (field.kind === 'unsupported') throw unsupported(`Unsupported(...) fields (${model.name}.${field.name})`);
      if (field.kind === 'object' && field.isList && oppositeField(datamodel, model, field).isList) {
        throw unsupported(`implicit many-to-many relations (${model.name}.${field.name})`);
      }
    }
  }
}

function oppositeField(datamodel: Datamodel, model: DmmfModel, field: DmmfField): DmmfField {
  const other = findModel(datamodel, field.type);
  const opposite = other.fields.find(
    (f) => f.relationName === field.relationName && (other !== model || f.name !== field.name),
  );
  if (!opposite) throw new Error(`No opposite relation field for ${model.name}.${field.name}`);
  return opposite;
}

function describeModel(model: DmmfModel, datamodel: Datamodel): TableDescription {
  const table = dbName(model);
  const columnsOf = (fieldNames: string[]) => fieldNames.map((f) => dbName(findField(model, f)));
  const indexes = datamodel.indexes.filter((i) => i.model === model.name);
  const line = (index: DmmfIndex, suffix: string) => {
    const columns = index.fields.map((f) => dbName(findField(model, f.name)));
    const name = index.dbName ?? defaultIndexName(table, columns, suffix);
    const rendered = index.fields.map((f, i) => `${columns[i]}${f.sortOrder === 'desc' ? ' DESC' : ''}`);
    return indexLine(name, rendered, index.algorithm?.toLowerCase() ?? 'btree', null);
  };
  const primary = indexes.find((i) => i.type === 'id');
  return {
    columns: sortKeys(
      Object.fromEntries(
        model.fields
          .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
          .map((f) => [dbName(f), describeField(f, datamodel)]),
      ),
    ),
    primaryKey: primary
      ? `${primary.dbName ?? primaryKeyName(table)} (${columnsOf(primary.fields.map((f) => f.name)).join(', ')})`
      : null,
    uniqueIndexes: indexes
      .filter((i) => i.type === 'unique')
      .map((i) => line(i, '_key'))
      .sort(),
    indexes: indexes
      .filter((i) => i.type === 'normal')
      .map((i) => line(i, '_idx'))
      .sort(),
    foreignKeys: model.fields
      .filter((f) => f.kind === 'object' && (f.relationFromFields?.length ?? 0) > 0)
      .map((f) => foreignKeyLine(table, columnsOf(f.relationFromFields ?? []), f, datamodel))
      .sort(),
  };
}

function foreignKeyLine(table: string, columns: string[], field: DmmfField, datamodel: Datamodel): string {
  const target = findModel(datamodel, field.type);
  const targetColumns = (field.relationToFields ?? []).map((f) => dbName(findField(target, f)));
  // Prisma's defaults: Restrict (required relation) / SetNull (optional relation), and Cascade on update.
  const onDelete = field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull');
  const onUpdate = field.relationOnUpdate ?? 'Cascade';
  return (
    `${foreignKeyName(table, columns)} (${columns.join(', ')}) REFERENCES ${dbName(target)} (${targetColumns.join(', ')})` +
    ` ON DELETE ${PRISMA_ACTIONS[onDelete] ?? onDelete} ON UPDATE ${PRISMA_ACTIONS[onUpdate] ?? onUpdate}`
  );
}

const PRISMA_ACTIONS: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

function describeField(field: DmmfField, datamodel: Datamodel): ColumnDescription {
  const enumType = field.kind === 'enum' ? findEnum(datamodel, field.type) : undefined;
  const base = enumType ? `enum ${dbName(enumType)}` : field.nativeType ? nativeTypeName(field) : scalarTypeName(field);
  return {
    type: field.isList ? `${base}[]` : base,
    // `prisma migrate` creates scalar list columns without NOT NULL.
    nullable: field.isList || !field.isRequired,
    default: expectedDefault(field, enumType),
  };
}

/** The column type `prisma migrate` creates for a field without @db.*, spelled as `format_type` prints it. */
function scalarTypeName(field: DmmfField): string {
  const types: Record<string, string> = {
    String: 'text',
    Boolean: 'boolean',
    Int: 'integer',
    BigInt: 'bigint',
    Float: 'double precision',
    Decimal: 'numeric(65,30)',
    DateTime: 'timestamp(3) without time zone',
    Json: 'jsonb',
    Bytes: 'bytea',
  };
  const type = types[field.type];
  if (!type) throw new Error(`Unknown Prisma scalar type ${field.type} (field ${field.name})`);
  return type;
}

/** The column type of a field with @db.<Type>(args), spelled as `format_type` prints it. */
function nativeTypeName(field: DmmfField): string {
  const [name, args] = field.nativeType ?? ['', []];
  const withArgs = (type: string) => (args.length > 0 ? `${type}(${args.join(',')})` : type);
  const withPrecision = (type: string, zone: string) => `${withArgs(type)} ${zone} time zone`;
  switch (name) {
    case 'Text':
    case 'Uuid':
    case 'Xml':
    case 'Inet':
    case 'Citext':
    case 'Money':
    case 'Oid':
    case 'Date':
    case 'Boolean':
    case 'Integer':
    case 'SmallInt':
    case 'BigInt':
    case 'Real':
      return name.toLowerCase();
    case 'DoublePrecision':
      return 'double precision';
    case 'Json':
      return 'json';
    case 'JsonB':
      return 'jsonb';
    case 'ByteA':
      return 'bytea';
    case 'VarChar':
      return withArgs('character varying');
    case 'Char':
      return args.length > 0 ? withArgs('character') : 'character(1)';
    case 'Bit':
      return args.length > 0 ? withArgs('bit') : 'bit(1)';
    case 'VarBit':
      return withArgs('bit varying');
    case 'Decimal':
      return withArgs('numeric');
    case 'Timestamp':
      return withPrecision('timestamp', 'without');
    case 'Timestamptz':
      return withPrecision('timestamp', 'with');
    case 'Time':
      return withPrecision('time', 'without');
    case 'Timetz':
      return withPrecision('time', 'with');
    default:
      throw new Error(`Unknown native type @db.${name} (field ${field.name}); extend nativeTypeName`);
  }
}

/** The database default `prisma migrate` creates for a field; client-side defaults (uuid(), cuid(), ...) create none. */
function expectedDefault(field: DmmfField, enumType: DmmfEnum | undefined): string | null {
  const value = field.default;
  if (!field.hasDefaultValue || value === undefined) return null;
  if (field.isList) return 'array default';
  if (isRecord(value)) {
    const args = Array.isArray(value['args']) ? (value['args'] as unknown[]) : [];
    switch (value['name']) {
      case 'now':
        return 'now()';
      case 'autoincrement':
        return 'autoincrement()';
      case 'dbgenerated':
        return `expression ${String(args[0] ?? '')}`;
      case 'uuid':
      case 'cuid':
      case 'nanoid':
      case 'ulid':
        return null;
      default:
        throw new Error(`Unsupported @default(${String(value['name'])}()) on field ${field.name}`);
    }
  }
  const text = enumType
    ? dbName(enumType.values.find((v) => v.name === value) ?? { name: String(value) })
    : String(value);
  return literal(text, prismaLiteralKind(field.type));
}

function prismaLiteralKind(type: string): LiteralKind {
  if (type === 'Json') return 'json';
  if (type === 'DateTime') return 'datetime';
  return ['Int', 'BigInt', 'Float', 'Decimal'].includes(type) ? 'number' : 'other';
}

function defaultIndexName(table: string, columns: string[], suffix: string): string {
  const joined = `${table}_${columns.join('_')}`;
  const limit = MAX_IDENTIFIER_LENGTH - suffix.length;
  return `${joined.length >= limit ? joined.slice(0, limit) : joined}${suffix}`;
}

function primaryKeyName(table: string): string {
  const limit = MAX_IDENTIFIER_LENGTH - '_pkey'.length;
  return `${table.length >= limit ? table.slice(0, limit) : table}_pkey`;
}

function foreignKeyName(table: string, columns: string[]): string {
  const joined = `${table}_${columns.join('_')}`;
  const limit = MAX_IDENTIFIER_LENGTH - '_fkey'.length;
  return `${joined.length >= limit ? joined.slice(0, limit) : joined}_fkey`;
}

function findModel(datamodel: Datamodel, name: string): DmmfModel {
  const model = datamodel.models.find((m) => m.name === name);
  if (!model) throw new Error(`Model ${name} not found in the datamodel`);
  return model;
}

function findEnum(datamodel: Datamodel, name: string): DmmfEnum {
  const found = datamodel.enums.find((e) => e.name === name);
  if (!found) throw new Error(`Enum ${name} not found in the datamodel`);
  return found;
}

function findField(model: DmmfModel, name: string): DmmfField {
  const field = model.fields.find((f) => f.name === name);
  if (!field) throw new Error(`Field ${model.name}.${name} not found in the datamodel`);
  return field;
}

// ---------------------------------------------------------------------------
// database side
// ---------------------------------------------------------------------------

const IGNORED_TABLES = ['_prisma_migrations'];
/** Indexes schema.prisma cannot express, written by hand in the migrations (full-text search). */
const HAND_WRITTEN_INDEXES = new Set(['memories_content_fts_idx']);

interface ColumnRow {
  table: string;
  column: string;
  type: string;
  not_null: boolean;
  default_expr: string | null;
  identity: boolean;
  generated: boolean;
}
interface IndexRow {
  table: string;
  name: string;
  is_primary: boolean;
  is_unique: boolean;
  method: string;
  predicate: string | null;
  columns: string[];
}
interface ForeignKeyRow {
  table: string;
  name: string;
  columns: string[];
  referenced_table: string;
  referenced_columns: string[];
  on_delete: string;
  on_update: string;
}
interface EnumRow {
  name: string;
  labels: string[];
}

/** What the database at `databaseUrl` looks like, in the same shape as `describePrismaSchema`. */
export async function describeDatabase(databaseUrl: string, schema = 'public'): Promise<SchemaDescription> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Timestamp literals in defaults are printed in the session time zone.
    await client.query(`SET TIME ZONE 'UTC'`);
    const tables = [schema, IGNORED_TABLES];
    const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]) =>
      (await client.query<R>(sql, params)).rows;
    const columns = await query<ColumnRow>(COLUMNS_SQL, tables);
    const indexes = await query<IndexRow>(INDEXES_SQL, tables);
    const foreignKeys = await query<ForeignKeyRow>(FOREIGN_KEYS_SQL, tables);
    const enums = await query<EnumRow>(ENUMS_SQL, [schema]);
    return {
      enums: sortKeys(Object.fromEntries(enums.map((e) => [e.name, e.labels]))),
      tables: sortKeys(buildTables(columns, indexes, foreignKeys)),
    };
  } finally {
    await client.end();
  }
}

function buildTables(
  columns: ColumnRow[],
  indexes: IndexRow[],
  foreignKeys: ForeignKeyRow[],
): Record<string, TableDescription> {
  const tables: Record<string, TableDescription> = {};
  const tableFor = (name: string): TableDescription =>
    (tables[name] ??= { columns: {}, primaryKey: null, uniqueIndexes: [], indexes: [], foreignKeys: [] });
  for (const c of columns) {
    tableFor(c.table).columns[c.column] = {
      type: c.type,
      nullable: !c.not_null,
      default: databaseDefault(c),
    };
  }
  for (const i of indexes) {
    if (HAND_WRITTEN_INDEXES.has(i.name)) continue;
    const table = tableFor(i.table);
    if (i.is_primary) table.primaryKey = `${i.name} (${i.columns.join(', ')})`;
    else (i.is_unique ? table.uniqueIndexes : table.indexes).push(indexLine(i.name, i.columns, i.method, i.predicate));
  }
  for (const fk of foreignKeys) {
    tableFor(fk.table).foreignKeys.push(
      `${fk.name} (${fk.columns.join(', ')}) REFERENCES ${fk.referenced_table} (${fk.referenced_columns.join(', ')})` +
        ` ON DELETE ${PG_ACTIONS[fk.on_delete]} ON UPDATE ${PG_ACTIONS[fk.on_update]}`,
    );
  }
  for (const table of Object.values(tables)) {
    table.columns = sortKeys(table.columns);
    table.uniqueIndexes.sort();
    table.indexes.sort();
    table.foreignKeys.sort();
  }
  return tables;
}

/** pg_constraint.confdeltype / confupdtype codes. */
const PG_ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

const TABLES_CTE = `
  WITH tables AS (
    SELECT c.oid, c.relname::text AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT (c.relname = ANY ($2::text[]))
  )`;

const COLUMNS_SQL = `${TABLES_CTE}
  SELECT t.name AS table, a.attname::text AS column, a.attnotnull AS not_null,
         CASE WHEN ty.typtype = 'e' THEN 'enum ' || ty.typname
              WHEN el.typtype = 'e' THEN 'enum ' || el.typname || '[]'
              ELSE format_type(a.atttypid, a.atttypmod) END AS type,
         pg_get_expr(d.adbin, d.adrelid) AS default_expr,
         a.attidentity <> '' AS identity,
         a.attgenerated <> '' AS generated
  FROM tables t
  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_type ty ON ty.oid = a.atttypid
  LEFT JOIN pg_type el ON el.oid = ty.typelem AND ty.typcategory = 'A'
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum`;

const INDEXES_SQL = `${TABLES_CTE}
  SELECT t.name AS table, i.relname::text AS name, x.indisprimary AS is_primary, x.indisunique AS is_unique,
         am.amname::text AS method, pg_get_expr(x.indpred, x.indrelid) AS predicate,
         array(
           SELECT coalesce(a.attname::text, pg_get_indexdef(x.indexrelid, k + 1, true))
                  || CASE WHEN x.indoption[k] & 1 = 1 THEN ' DESC' ELSE '' END
           FROM generate_subscripts(x.indkey, 1) AS k
           LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[k]
           WHERE k < x.indnkeyatts
           ORDER BY k
         ) AS columns
  FROM tables t
  JOIN pg_index x ON x.indrelid = t.oid
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_am am ON am.oid = i.relam`;

const FOREIGN_KEYS_SQL = `${TABLES_CTE}
  SELECT t.name AS table, con.conname::text AS name, r.relname::text AS referenced_table,
         array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(num, ord)
               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
         array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(num, ord)
               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) AS referenced_columns,
         con.confdeltype AS on_delete, con.confupdtype AS on_update
  FROM tables t
  JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype = 'f'
  JOIN pg_class r ON r.oid = con.confrelid`;

const ENUMS_SQL = `
  SELECT ty.typname::text AS name,
         array(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = ty.oid ORDER BY e.enumsortorder) AS labels
  FROM pg_type ty JOIN pg_namespace n ON n.oid = ty.typnamespace
  WHERE n.nspname = $1 AND ty.typtype = 'e'`;

/** A cast such as `::text`, `::"RunStatus"`, `::character varying(20)`, `::text[]`. */
const CAST = String.raw`::(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_ .]*)(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])?`;
const QUOTED_LITERAL = new RegExp(String.raw`^'((?:[^']|'')*)'(?:${CAST})*$`, 'i');
const BARE_LITERAL = new RegExp(String.raw`^\(?(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false)\)?(?:${CAST})*$`, 'i');

/** Normalizes a column default as printed by pg_get_expr to the vocabulary of `expectedDefault`. */
function databaseDefault(column: ColumnRow): string | null {
  const expr = column.default_expr;
  if (column.identity) return 'autoincrement()';
  if (expr === null) return null;
  if (column.generated) return `generated ${expr}`;
  if (column.type.endsWith('[]')) return 'array default';
  if (/^nextval\(/i.test(expr)) return 'autoincrement()';
  if (/^(CURRENT_TIMESTAMP(\(\d\))?|now\(\))$/i.test(expr)) return 'now()';
  const kind = databaseLiteralKind(column.type);
  const quoted = QUOTED_LITERAL.exec(expr);
  if (quoted) return literal((quoted[1] ?? '').replaceAll("''", "'"), kind);
  const bare = BARE_LITERAL.exec(expr);
  if (bare) return literal(bare[1] ?? '', kind);
  return `expression ${expr}`;
}

function databaseLiteralKind(type: string): LiteralKind {
  if (/^jsonb?$/.test(type)) return 'json';
  if (/^(timestamp|date)/.test(type)) return 'datetime';
  return /^(smallint|integer|bigint|numeric|real|double precision)/.test(type) ? 'number' : 'other';
}

type LiteralKind = 'json' | 'datetime' | 'number' | 'other';

/** Renders a literal default so that equal values compare equal on both sides. */
function literal(value: string, kind: LiteralKind): string {
  const canonical = {
    json: canonicalJson,
    datetime: canonicalTimestamp,
    number: canonicalNumber,
    other: (text: string) => text,
  }[kind](value);
  return `literal ${JSON.stringify(canonical)}`;
}

/** `2.50` and `2.5` are one value (Prisma prints Decimal defaults without trailing zeros). */
function canonicalNumber(text: string): string {
  return /^-?\d+\.\d+$/.test(text) ? text.replace(/\.?0+$/, '') : text;
}

function canonicalJson(text: string): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isRecord(v)
        ? sortKeys(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sorted(x)])))
        : v;
  try {
    return JSON.stringify(sorted(JSON.parse(text)));
  } catch {
    return text;
  }
}

/** `2020-01-01 00:00:00`, `2020-01-01 00:00:00+00` and `2020-01-01T00:00:00+00:00` all become one ISO string. */
function canonicalTimestamp(text: string): string {
  let iso = text.trim().replace(' ', 'T');
  if (/^\d{4}-\d\d-\d\d$/.test(iso)) iso += 'T00:00:00';
  iso = iso.replace(/([+-]\d\d)$/, '$1:00');
  if (!/(Z|[+-]\d\d:\d\d)$/.test(iso)) iso += 'Z';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function indexLine(name: string, columns: string[], method: string, predicate: string | null): string {
  const using = method === 'btree' ? '' : ` USING ${method}`;
  const where = predicate ? ` WHERE ${predicate}` : '';
  return `${name} (${columns.join(', ')})${using}${where}`;
}

// ---------------------------------------------------------------------------
// comparison
// ---------------------------------------------------------------------------

/**
 * Human-readable differences between two descriptions, one line each, e.g.
 * `tables.runs.columns.timezone: in schema.prisma but not in the database ({...})`.
 * Empty when they agree.
 */
export function findDifferences(expected: unknown, actual: unknown, path = ''): string[] {
  if (isRecord(expected) && isRecord(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    return keys.flatMap((key) => {
      const at = path ? `${path}.${key}` : key;
      if (!(key in actual))
        return [`${at}: in schema.prisma but not in the database (${JSON.stringify(expected[key])})`];
      if (!(key in expected))
        return [`${at}: in the database but not in schema.prisma (${JSON.stringify(actual[key])})`];
      return findDifferences(expected[key], actual[key], at);
    });
  }
  if (Array.isArray(expected) && Array.isArray(actual)) return listDifferences(expected, actual, path);
  if (JSON.stringify(expected) === JSON.stringify(actual)) return [];
  return [`${path}: schema.prisma has ${JSON.stringify(expected)}, the database has ${JSON.stringify(actual)}`];
}

function listDifferences(expected: unknown[], actual: unknown[], path: string): string[] {
  const key = (x: unknown) => JSON.stringify(x);
  const actualKeys = new Set(actual.map(key));
  const expectedKeys = new Set(expected.map(key));
  const missing = expected.filter((x) => !actualKeys.has(key(x)));
  const extra = actual.filter((x) => !expectedKeys.has(key(x)));
  const out = [
    ...missing.map((x) => `${path}: ${key(x)} is in schema.prisma but not in the database`),
    ...extra.map((x) => `${path}: ${key(x)} is in the database but not in schema.prisma`),
  ];
  if (out.length === 0 && key(expected) !== key(actual)) {
    out.push(`${path}: order differs: schema.prisma has ${key(expected)}, the database has ${key(actual)}`);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
