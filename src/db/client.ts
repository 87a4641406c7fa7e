import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;

/** One Prisma client per process, over node-postgres. */
export function createDb(databaseUrl: string, max = 10): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max });
  return new PrismaClient({ adapter });
}
