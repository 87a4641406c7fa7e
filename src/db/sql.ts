import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';
import type { Db, Tx } from './client.ts';
import { poolOf } from './client.ts';

/**
 * Plain SQL statements (`$1`, `$2`… placeholders), run either inside a Prisma transaction or on a
 * node-postgres client. The run's hot writes (a run step: events, status, bill, messages) are
 * written once against this and run on the pg pool, where Prisma's own work per statement would
 * cost more CPU than the statement; other callers keep running them inside their Prisma
 * transactions. Integer results are int4 (cast sums) so both drivers return numbers.
 */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

export function sqlOfTx(tx: Tx): Sql {
  return { query: <T>(text: string, values: unknown[] = []) => tx.$queryRawUnsafe<T[]>(text, ...values) };
}

const names = new Map<string, string>();

/**
 * A statement with parameters as a named prepared statement: each pooled connection parses and
 * plans it once, then only binds and executes it (about half the CPU of an event append, in
 * PostgreSQL and in the driver). The name is a hash of the text, so one text is one
 * statement on every connection. Statements without parameters (BEGIN, COMMIT) stay simple queries.
 * Our statement texts are constants, so the set of names, and of statements a connection keeps, is bounded.
 */
export function prepared(text: string, values: unknown[] = []): QueryConfig {
  if (values.length === 0) return { text };
  let name = names.get(text);
  if (name === undefined) {
    name = `ars_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

/** Single statements on `db`'s pg pool, outside any transaction. */
export function sqlOfPool(db: Db): Sql {
  const pool = poolOf(db);
  return {
    query: async <T>(text: string, values: unknown[] = []) => (await pool.query(prepared(text, values))).rows as T[],
  };
}

/** Runs `work` in one transaction on a client of `db`'s pg pool: committed when it returns, rolled back when it throws. */
export async function inPgTransaction<T>(db: Db, work: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  // A connection lost while checked out (PostgreSQL restarting) emits 'error' on the client as well
  // as failing the query under way; with no listener that event would end the process.
  let lost: Error | undefined;
  const onError = (err: Error) => (lost = err);
  client.on('error', onError);
  const sql: Sql = {
    query: async <R>(text: string, values: unknown[] = []) => (await client.query(prepared(text, values))).rows as R[],
  };
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(sql);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
    throw err;
  } finally {
    client.off('error', onError);
    // A connection that was lost, or could not even roll back, is dropped, not handed to the next caller.
    client.release(broken ?? lost);
  }
}
