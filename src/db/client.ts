import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/** The client handed to a `$transaction` callback. */
export type Tx = Prisma.TransactionClient;

/** Reads and writes that run either on the client or inside one of its transactions. */
export type DbOrTx = Db | Tx;

/** One Prisma client per process, over node-postgres. */
export function createDb(databaseUrl: string, max = 10): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max });
  return new PrismaClient({ adapter });
}

/** Resolves when PostgreSQL answers a trivial query (readiness). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
