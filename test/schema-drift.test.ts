/**
 * Fails when prisma/schema.prisma and the hand-written SQL in prisma/migrations
 * disagree. `prisma migrate` cannot run here (it needs Prisma's native schema
 * engine), so this applies the migrations with our own `migrate()` to a fresh
 * database and compares what it built with what schema.prisma describes; see
 * test/support/schema-model.ts for what is compared and how.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../src/config.ts';
import { EVENTS_CHANNEL, QUEUES_CHANNEL } from '../src/db/event-log.ts';
import { listMigrations, migrate, migrationsDir } from '../src/db/migrate.ts';
import {
  describeDatabase,
  describePrismaSchema,
  findDifferences,
  type SchemaDescription,
} from './support/schema-model.ts';

const schemaPath = path.join(projectRoot, 'prisma', 'schema.prisma');
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Runs one statement on the server's maintenance connection (the database named in serverUrl). */
async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

interface ScratchDatabase {
  name: string;
  url: string;
}

const scratchDatabases: ScratchDatabase[] = [];

/** Creates an empty database with a unique name on the server; afterAll drops it. */
async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `schema_drift_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = { name, url: url.toString() };
  scratchDatabases.push(db);
  return db;
}

afterAll(async () => {
  for (const db of scratchDatabases.splice(0)) {
    await onServer(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
  }
});

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
}

describe('schema.prisma and prisma/migrations', () => {
  let migrated: ScratchDatabase;
  let appliedNames: string[];
  let expected: SchemaDescription;

  beforeAll(async () => {
    expected = describePrismaSchema(readFileSync(schemaPath, 'utf8'));
    migrated = await createScratchDatabase();
    appliedNames = await migrate(migrated.url);
  });

  it('the migrations build exactly the schema that schema.prisma describes', async () => {
    const actual = await describeDatabase(migrated.url);
    const differences = findDifferences(expected, actual);
    expect(differences, `schema.prisma and the migrations disagree:\n${differences.join('\n')}`).toEqual([]);
    expect(actual).toEqual(expected);
  });

  it('the check is not vacuous: it reports a database that drifted', async () => {
    const drifted = await createScratchDatabase();
    await migrate(drifted.url);
    const [table, description] = Object.entries(expected.tables)[0] ?? [];
    const [enumName, labels] = Object.entries(expected.enums)[0] ?? [];
    const column = Object.keys(description?.columns ?? {}).at(-1);
    if (!table || !column || !enumName || !labels)
      throw new Error('schema.prisma has no table, column or enum to tamper with');

    await withClient(drifted.url, async (client) => {
      await client.query(`ALTER TABLE "${table}" DROP COLUMN "${column}" CASCADE`);
      await client.query(`ALTER TABLE "${table}" ADD COLUMN "drift_extra" text`);
      await client.query(`ALTER TYPE "${enumName}" ADD VALUE 'drift_extra_value'`);
    });
    const differences = findDifferences(expected, await describeDatabase(drifted.url));

    expect(differences).toEqual(
      expect.arrayContaining([
        `tables.${table}.columns.${column}: in schema.prisma but not in the database (${JSON.stringify(description?.columns[column])})`,
        `tables.${table}.columns.drift_extra: in the database but not in schema.prisma ({"type":"text","nullable":true,"default":null})`,
        `enums.${enumName}: "drift_extra_value" is in the database but not in schema.prisma`,
      ]),
    );
  });

  it('the check is not vacuous: it reports a schema.prisma change that has no migration', async () => {
    const schema = readFileSync(schemaPath, 'utf8')
      .replace(/^(model \w+ \{)$/m, '$1\n  driftProbe Int @default(7) @map("drift_probe")')
      .concat('\nmodel DriftProbe {\n  id String @id\n\n  @@map("drift_probe")\n}\n');
    const differences = findDifferences(describePrismaSchema(schema), await describeDatabase(migrated.url));

    expect(differences).toHaveLength(2);
    expect(differences).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^tables\.\w+\.columns\.drift_probe: in schema\.prisma but not in the database \(\{"type":"integer","nullable":false,"default":"literal \\"7\\""\}\)$/,
        ),
        'tables.drift_probe: in schema.prisma but not in the database ({"columns":{"id":{"type":"text","nullable":false,"default":null}},"primaryKey":"drift_probe_pkey (id)","uniqueIndexes":[],"indexes":[],"foreignKeys":[]})',
      ]),
    );
  });

  // Both sides below are read from the database, to show that each attribute it reads takes part in the comparison.
  it('reports changed types, nullability, defaults, indexes and foreign keys', async () => {
    const drifted = await createScratchDatabase();
    await migrate(drifted.url);
    await withClient(drifted.url, async (client) => {
      await client.query(`CREATE TABLE "drift_parent" ("id" text PRIMARY KEY)`);
      await client.query(`CREATE TABLE "drift_child" (
        "id" integer PRIMARY KEY,
        "parent_id" text REFERENCES "drift_parent" ("id") ON DELETE SET NULL,
        "label" varchar(20) NOT NULL DEFAULT 'x'
      )`);
      await client.query(`CREATE UNIQUE INDEX "drift_child_label_key" ON "drift_child" ("label" DESC)`);
    });
    const base = await describeDatabase(drifted.url);
    expect(base.tables['drift_child']).toEqual({
      columns: {
        id: { type: 'integer', nullable: false, default: null },
        label: { type: 'character varying(20)', nullable: false, default: 'literal "x"' },
        parent_id: { type: 'text', nullable: true, default: null },
      },
      primaryKey: 'drift_child_pkey (id)',
      uniqueIndexes: ['drift_child_label_key (label DESC)'],
      indexes: [],
      foreignKeys: [
        'drift_child_parent_id_fkey (parent_id) REFERENCES drift_parent (id) ON DELETE SET NULL ON UPDATE NO ACTION',
      ],
    });

    await withClient(drifted.url, async (client) => {
      await client.query(`ALTER TABLE "drift_child" ALTER COLUMN "label" TYPE text, ALTER COLUMN "label" DROP NOT NULL,
        ALTER COLUMN "label" DROP DEFAULT, ALTER COLUMN "id" ADD GENERATED ALWAYS AS IDENTITY`);
      await client.query(`DROP INDEX "drift_child_label_key"`);
      await client.query(`CREATE INDEX "drift_child_label_idx" ON "drift_child" USING hash ("label")`);
      await client.query(`ALTER TABLE "drift_child" DROP CONSTRAINT "drift_child_parent_id_fkey",
        ADD FOREIGN KEY ("parent_id") REFERENCES "drift_parent" ("id") ON DELETE CASCADE ON UPDATE CASCADE`);
    });
    const changed = await describeDatabase(drifted.url);
    expect(findDifferences(base.tables['drift_child'], changed.tables['drift_child'], 'tables.drift_child')).toEqual([
      'tables.drift_child.columns.id.default: schema.prisma has null, the database has "autoincrement()"',
      'tables.drift_child.columns.label.default: schema.prisma has "literal \\"x\\"", the database has null',
      'tables.drift_child.columns.label.nullable: schema.prisma has false, the database has true',
      'tables.drift_child.columns.label.type: schema.prisma has "character varying(20)", the database has "text"',
      'tables.drift_child.foreignKeys: "drift_child_parent_id_fkey (parent_id) REFERENCES drift_parent (id) ON DELETE SET NULL ON UPDATE NO ACTION" is in schema.prisma but not in the database',
      'tables.drift_child.foreignKeys: "drift_child_parent_id_fkey (parent_id) REFERENCES drift_parent (id) ON DELETE CASCADE ON UPDATE CASCADE" is in the database but not in schema.prisma',
      'tables.drift_child.indexes: "drift_child_label_idx (label) USING hash" is in the database but not in schema.prisma',
      'tables.drift_child.uniqueIndexes: "drift_child_label_key (label DESC)" is in schema.prisma but not in the database',
    ]);
  });

  it('the event trigger notifies the channels the event hub listens on', async () => {
    const body = await withClient(
      migrated.url,
      async (client) =>
        (await client.query<{ body: string }>(`SELECT prosrc AS body FROM pg_proc WHERE proname = 'notify_run_event'`))
          .rows[0]?.body,
    );
    expect(body).toContain(`pg_notify('${EVENTS_CHANNEL}',`);
    expect(body).toContain(`pg_notify('${QUEUES_CHANNEL}',`);
  });

  it('has a migration lock for PostgreSQL', () => {
    const lockFile = path.join(migrationsDir, 'migration_lock.toml');
    expect(existsSync(lockFile)).toBe(true);
    expect(readFileSync(lockFile, 'utf8')).toMatch(/^provider\s*=\s*"postgresql"\s*$/m);
  });

  it('records one finished migration per directory, with its checksum', async () => {
    const names = listMigrations();
    expect(names.length).toBeGreaterThan(0);
    expect(appliedNames).toEqual(names);
    const rows = await withClient(
      migrated.url,
      async (client) =>
        (
          await client.query(
            `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished,
                rolled_back_at IS NULL AS not_rolled_back, applied_steps_count
         FROM "_prisma_migrations" ORDER BY migration_name`,
          )
        ).rows,
    );
    expect(rows).toEqual(
      names.map((name) => ({
        migration_name: name,
        checksum: sha256(path.join(migrationsDir, name, 'migration.sql')),
        finished: true,
        not_rolled_back: true,
        applied_steps_count: 1,
      })),
    );
    // Applying again is a no-op.
    expect(await migrate(migrated.url)).toEqual([]);
  });
});
