import { loadConfigOrExit } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { ensureDatabase } from '../embedded/postgres.ts';

/** `npm run db:migrate`: applies prisma/migrations to DATABASE_URL (or the embedded database). */
const config = loadConfigOrExit();
const database = await ensureDatabase(config, console.log);
const applied = await migrate(database.url);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
await database.stop?.();
