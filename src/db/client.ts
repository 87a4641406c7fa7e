import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/** The client handed to a `$transaction` callback. */
export type Tx = Prisma.TransactionClient;

/** Reads and writes that run either on the client or inside one of its transactions. */
export type DbOrTx = Db | Tx;

const pools = new WeakMap<Db, pg.Pool>();

/** One Prisma client per process, over a node-postgres pool it ends on $disconnect. */
export function createDb(databaseUrl: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max });
  // An idle connection the server dropped is taken out of the pool; the next query reports any outage itself.
  pool.on('error', () => {});
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/**
 * The node-postgres pool under `db`, for the writes too hot for Prisma, whose own work per query
 * (~2 ms) was most of their time: a model step's event appends and a run step's transaction
 * (sql.ts).
 */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('poolOf: not a client made by createDb');
  return pool;
}

/** Resolves when PostgreSQL answers a trivial query (readiness). */
export async function pingDatabase(db: Db): Promise<void> {
  await poolOf(db).query('SELECT 1');
}
