import type { Db } from '../src/db/client.ts';
import { appendEvents } from '../src/db/event-log.ts';
import { encodeCursor } from '../src/api/cursors.ts';
import type { RunEventInput } from '../src/shared/events.ts';
import { newId } from '../src/shared/ids.ts';
import { request, type BenchCaller } from './client.ts';
import type { Tenant } from './tenant.ts';

const PAGE_LIMIT = 100;
const FILL_BATCH = 1000;

/** A task and an executing run made directly in the database: nothing but the bench writes to its log. */
export async function createRun(db: Db, tenant: Tenant): Promise<{ taskId: string; runId: string }> {
  const taskId = newId('task');
  const runId = newId('run');
  await db.task.create({
    data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.ownerId, title: 'bench' },
  });
  await db.run.create({
    data: {
      id: runId,
      taskId,
      status: 'executing',
      requestedMode: 'fast',
      mode: 'fast',
      routingReason: 'bench',
      streamed: false,
    },
  });
  return { taskId, runId };
}

/** A token delta of a typical size (a 25 ms batch of a few words). */
const delta = (i: number): RunEventInput => ({
  type: 'TEXT_MESSAGE_CONTENT',
  message_id: 'msg_bench',
  delta: `word${i} and a few more `,
});

/** A run whose log holds `events` rows, written by the product's own append, FILL_BATCH a transaction. */
async function filledRun(db: Db, tenant: Tenant, events: number): Promise<string> {
  const { runId } = await createRun(db, tenant);
  for (let seq = 0; seq < events; seq += FILL_BATCH) {
    await appendEvents(
      db,
      runId,
      Array.from({ length: Math.min(FILL_BATCH, events - seq) }, (_, i) => delta(seq + i)),
    );
  }
  return runId;
}

export interface PagingTimes {
  /** label → samples (ms) */
  [label: string]: number[];
}

/**
 * GET /api/runs/{id}/events?limit=100 on a run of `small` events and one of `large`: the
 * first page and the last full page (a deep cursor) of each, interleaved in alternating
 * order so drift in machine load hits every position alike.
 */
export async function benchPaging(
  db: Db,
  tenant: Tenant,
  who: BenchCaller,
  small: number,
  large: number,
  samples: number,
): Promise<PagingTimes> {
  const positions: { label: string; runId: string; cursor: string }[] = [];
  for (const [size, runId] of [
    [small, await filledRun(db, tenant, small)],
    [large, await filledRun(db, tenant, large)],
  ] as const) {
    positions.push({ label: `first@${size}`, runId, cursor: '' });
    positions.push({ label: `deep@${size}`, runId, cursor: encodeCursor({ runId, seq: size - PAGE_LIMIT }) });
  }
  const times: PagingTimes = Object.fromEntries(positions.map((p) => [p.label, []]));
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? positions : [...positions].reverse();
    for (const pos of order) {
      const query = `limit=${PAGE_LIMIT}${pos.cursor ? `&cursor=${pos.cursor}` : ''}`;
      const t0 = performance.now();
      const res = await request(who, 'GET', `/api/runs/${pos.runId}/events?${query}`);
      const page = (await res.json()) as { count: number };
      const ms = performance.now() - t0;
      if (res.status !== 200 || page.count !== PAGE_LIMIT)
        throw new Error(`events page: ${res.status}, ${page.count} events`);
      times[pos.label]!.push(ms);
    }
  }
  return times;
}
