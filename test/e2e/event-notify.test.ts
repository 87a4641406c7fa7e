import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventHub } from '../../src/api/streaming/event-hub.ts';
import { appendEvents, readEvents, type StoredEvent } from '../../src/db/event-log.ts';
import type { RunEventInput } from '../../src/shared/events.ts';
import { newId } from '../../src/shared/ids.ts';
import { call, exchange, readSse } from '../support/http.ts';
import { backendPid, waitUntilBlockedBy } from '../support/pg-locks.ts';
import { closeTestDb, createTenant, testDb, type Tenant } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The notification of a stored event carries the event (trigger notify_run_event), so the
 * api's hub hands it to a run's streams without reading the table; an event too large for a
 * notification (8000 bytes) is announced without it and the streams read it from the table.
 */
let tenant: Tenant;

async function executingRun(): Promise<{ taskId: string; runId: string }> {
  const taskId = newId('task');
  const runId = newId('run');
  await testDb().task.create({
    data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.users.member, title: 'notify' },
  });
  await testDb().run.create({
    data: {
      id: runId,
      taskId,
      status: 'executing',
      requestedMode: 'fast',
      mode: 'fast',
      routingReason: 'test',
      streamed: false,
    },
  });
  return { taskId, runId };
}

const small = (delta: string): RunEventInput => ({ type: 'TEXT_MESSAGE_CONTENT', message_id: 'm1', delta });
const LARGE_DELTA = 'x'.repeat(9000);

beforeAll(async () => {
  tenant = await createTenant();
});

afterAll(async () => {
  await closeTestDb();
});

describe('event notifications', () => {
  it('carry the stored event exactly as the table holds it, or nothing for one too large to carry', async () => {
    const { runId } = await executingRun();
    let reads = 0;
    const hub = new EventHub(inject('databaseUrl'), pino({ level: 'silent' }), (id, after, limit) => {
      reads++;
      return readEvents(testDb(), id, after, limit);
    });
    await hub.start();
    const delivered: (StoredEvent | undefined)[] = [];
    const unsubscribe = hub.subscribe(runId, (event) => delivered.push(event));
    try {
      await appendEvents(testDb(), runId, [small('one '), small('two ')]);
      await appendEvents(testDb(), runId, [small(LARGE_DELTA)]);
      await eventually('three deliveries', () => expect(delivered.length).toBe(3));
      const stored = await readEvents(testDb(), runId, 0, 10);
      expect(delivered.slice(0, 2)).toEqual(stored.slice(0, 2));
      expect(delivered[2]).toBeUndefined();
      expect(reads).toBe(0);
    } finally {
      unsubscribe();
      await hub.stop();
    }
  });

  it('a stream sends carried and too-large events alike, once each and in order', async () => {
    const { taskId, runId } = await executingRun();
    const token = await exchange(tenant.keys.member);
    const res = await call('GET', `/api/tasks/${taskId}/stream`, { token, agentId: tenant.agentId });
    expect(res.status).toBe(200);
    const frames = readSse(res);
    await appendEvents(testDb(), runId, [small('before ')]);
    await appendEvents(testDb(), runId, [small(LARGE_DELTA)]);
    await appendEvents(testDb(), runId, [small('after '), { type: 'RUN_FINISHED', run_id: runId, result: {} }]);
    const events = (await frames).filter((f) => f.data.type !== 'HEARTBEAT');
    expect(events.map((f) => f.id)).toEqual([1, 2, 3, 4].map((seq) => `${runId}:${seq}`));
    expect(events.map((f) => f.data.delta)).toEqual(['before ', LARGE_DELTA, 'after ', undefined]);
  });

  it('a run end tells the hub its task has a queue to move, and only then', async () => {
    const hub = new EventHub(inject('databaseUrl'), pino({ level: 'silent' }), (id, after, limit) =>
      readEvents(testDb(), id, after, limit),
    );
    await hub.start();
    const told: string[] = [];
    hub.onQueueToMove((taskId) => told.push(taskId));
    try {
      const alone = await executingRun();
      const queued = await executingRun();
      await testDb().run.create({
        data: {
          id: newId('run'),
          taskId: queued.taskId,
          status: 'pending',
          requestedMode: 'fast',
          mode: 'fast',
          routingReason: 'test',
          streamed: false,
          queuedAt: new Date(),
        },
      });
      await appendEvents(testDb(), queued.runId, [small('not an end ')]);
      await appendEvents(testDb(), alone.runId, [{ type: 'RUN_FINISHED', run_id: alone.runId, result: {} }]);
      await appendEvents(testDb(), queued.runId, [
        { type: 'RUN_ERROR', run_id: queued.runId, code: 'INTERNAL', message: 'test', details: {} },
      ]);
      // The hub hears notifications in commit order: the queued task's is the last, so the others have been heard when it arrives.
      await eventually('the queued task told', () => expect(told).toEqual([queued.taskId]));
    } finally {
      await hub.stop();
    }
  });

  it('a run queued while the run ahead of it is ending is seen by that end: its queue moves', async () => {
    const hub = new EventHub(inject('databaseUrl'), pino({ level: 'silent' }), (id, after, limit) =>
      readEvents(testDb(), id, after, limit),
    );
    await hub.start();
    const told: string[] = [];
    hub.onQueueToMove((taskId) => told.push(taskId));
    const { taskId, runId } = await executingRun();
    const [queueing, ending] = [
      new pg.Client({ connectionString: inject('databaseUrl') }),
      new pg.Client({ connectionString: inject('databaseUrl') }),
    ];
    await Promise.all([queueing.connect(), ending.connect()]);
    try {
      // A request queueing a run holds the task's row, as storeRunStart does, and has not committed yet.
      await queueing.query('BEGIN');
      await queueing.query('SELECT id FROM tasks WHERE id = $1 FOR UPDATE', [taskId]);
      await queueing.query(
        `INSERT INTO runs (id, task_id, requested_mode, mode, routing_reason, streamed, queued_at) VALUES ($1, $2, 'fast', 'fast', 'test', false, now())`,
        [newId('run'), taskId],
      );
      // The run ahead stores its end meanwhile: its trigger waits for the task's row, then sees the queued run.
      await ending.query('BEGIN');
      const end = { type: 'RUN_FINISHED', run_id: runId, result: {} };
      const stored = ending.query(
        `INSERT INTO run_events (run_id, seq, type, name, payload, idempotency_key, created_at) VALUES ($1, 1, 'RUN_FINISHED', 'RUN_FINISHED', $2::jsonb, 'end#0', now())`,
        [runId, JSON.stringify(end)],
      );
      await waitUntilBlockedBy(await backendPid(queueing), 1, 'the end to wait for the task row');
      await queueing.query('COMMIT');
      await stored;
      await ending.query('COMMIT');
      await eventually('the task told', () => expect(told).toEqual([taskId]));
    } finally {
      await Promise.all([queueing.end(), ending.end()]);
      await hub.stop();
    }
  });
});
