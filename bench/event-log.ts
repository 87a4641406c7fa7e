import type { Db } from '../src/db/client.ts';
import { appendEvents } from '../src/db/event-log.ts';
import { encodeCursor } from '../src/api/streaming/cursor.ts';
import type { RunEventInput } from '../src/shared/events.ts';
import { newId } from '../src/shared/ids.ts';
import { request, type BenchCaller } from './client.ts';
import { distribution, perSecond, type Row } from './stats.ts';
import type { Tenant } from './tenant.ts';

const APPEND_EVENTS = 2000;
const HISTORY_EVENTS = 10_000;
const PAGE_LIMIT = 100;
const PAGE_SAMPLES = 40;
/** A section stops early (and says so by its n) if it takes longer than this. */
const SECTION_BUDGET_MS = 40_000;

/** A task and an executing run made directly in the database: nothing but the bench writes to its log. */
async function createRun(db: Db, tenant: Tenant): Promise<string> {
  const taskId = newId('task');
  const runId = newId('run');
  await db.task.create({ data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.ownerId, title: 'bench' } });
  await db.run.create({
    data: { id: runId, taskId, status: 'executing', requestedMode: 'fast', mode: 'fast', routingReason: 'bench', streamed: false },
  });
  return runId;
}

/** A token delta of a typical size (a 25 ms batch of a few words). */
const delta = (i: number): RunEventInput => ({ type: 'TEXT_MESSAGE_CONTENT', message_id: 'msg_bench', delta: `word${i} and a few more ` });

/** a. appendEvents throughput, one writer, batches of `batch` events into one run. */
export async function benchAppend(db: Db, tenant: Tenant): Promise<Row[]> {
  const rows: Row[] = [];
  for (const batch of [1, 20]) {
    const runId = await createRun(db, tenant);
    const latencies: number[] = [];
    const started = performance.now();
    let written = 0;
    while (written < APPEND_EVENTS && performance.now() - started < SECTION_BUDGET_MS / 2) {
      const events = Array.from({ length: batch }, (_, i) => delta(written + i));
      const t0 = performance.now();
      await appendEvents(db, runId, events);
      latencies.push(performance.now() - t0);
      written += batch;
    }
    const elapsed = performance.now() - started;
    rows.push(distribution('a. append', `appendEvents, batch of ${batch} (per call)`, latencies, perSecond(written, elapsed, 'events')));
  }
  return rows;
}

/** b. One page of GET /api/runs/{id}/events at the start of a 10,000-event history and after it. */
export async function benchPaging(db: Db, tenant: Tenant, who: BenchCaller): Promise<Row[]> {
  const runId = await createRun(db, tenant);
  // Fill with the same code path, 500 events a transaction, so the history is real rows with real seqs.
  for (let seq = 0; seq < HISTORY_EVENTS + PAGE_LIMIT; seq += 500) {
    await appendEvents(db, runId, Array.from({ length: 500 }, (_, i) => delta(seq + i)));
  }
  const positions = [
    { label: `page at seq 0 (limit ${PAGE_LIMIT})`, cursor: '' },
    { label: `page after seq ${HISTORY_EVENTS.toLocaleString('en-US')} (limit ${PAGE_LIMIT})`, cursor: encodeCursor({ runId, seq: HISTORY_EVENTS }) },
  ];
  const samples = positions.map(() => [] as number[]);
  const started = performance.now();
  // Interleaved, in alternating order, so drift in machine load and going first hit both positions alike.
  for (let i = 0; i < PAGE_SAMPLES && performance.now() - started < SECTION_BUDGET_MS; i++) {
    for (const j of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const pos = positions[j]!;
      const query = `limit=${PAGE_LIMIT}${pos.cursor ? `&cursor=${pos.cursor}` : ''}`;
      const t0 = performance.now();
      const res = await request(who, 'GET', `/api/runs/${runId}/events?${query}`);
      const page = (await res.json()) as { count: number };
      const ms = performance.now() - t0;
      if (res.status !== 200 || page.count !== PAGE_LIMIT) throw new Error(`events page: ${res.status}, ${page.count} events`);
      samples[j]!.push(ms);
    }
  }
  return positions.map((pos, j) => distribution('b. paging', `GET events, ${pos.label}`, samples[j]!));
}
