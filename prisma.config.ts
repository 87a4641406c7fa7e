import { defineConfig } from 'prisma/config';

// The Prisma CLI reads this file. DATABASE_URL is only needed by CLI commands
// that connect (e.g. `prisma migrate deploy` on a machine that has Prisma's
// schema engine); `prisma generate` does not connect.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
