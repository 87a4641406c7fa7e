import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenchTenant } from '../../bench/tenant.ts';
import { exchangeKey } from '../../bench/client.ts';
import { EVENT_HUB_APPLICATION } from '../../src/api/streaming/event-hub.ts';
import { createDb } from '../../src/db/client.ts';
import { ChaosStack, sleep } from '../support/chaos-stack.ts';
import { eventually } from '../support/eventually.ts';
import { readSse, type SseFrame } from '../support/http.ts';

/**
 * The api's LISTEN connection across PostgreSQL restarts, on a private,
 * restartable cluster (test/support/chaos-stack.ts). Heartbeats are set to
 * 10 minutes: their safety-net re-read cannot mask a dead LISTEN here, so
 * events that reach the open stream came by a notification.
 */
let stack: ChaosStack;
let who: { token: string; agentId: string };

beforeAll(async () => {
  stack = await ChaosStack.start({ env: { HEARTBEAT_INTERVAL_MS: '600000' } });
  const db = createDb(stack.databaseUrl, 1);
  const tenant = await createBenchTenant(db);
  await db.$disconnect();
  who = { token: await exchangeKey(stack.apiUrl, tenant.ownerKey), agentId: tenant.agentId };
}, 400_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

describe('LISTEN reconnect', () => {
  it('after 5 PostgreSQL restarts in a row: exactly one LISTEN connection, and an open stream gets new events', async () => {
    const abort = new AbortController();
    const res = await fetch(`${stack.apiUrl}/api/run`, {
      method: 'POST',
      signal: abort.signal,
      headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: '/tool request_user_input {"input_type":"text","prompt":"Name?"}' }],
        mode: 'fast',
      }),
    });
    expect(res.status).toBe(200);
    const taskId = res.headers.get('x-task-id')!;
    let afterRestarts: Promise<number[]> | undefined;
    const frames = await readSse(res, (frame) => {
      if (frame.data.type !== 'CUSTOM' || frame.data.name !== 'USER_INPUT_REQUIRED') return;
      // A failure here must end the stream read, or the test would wait for its timeout.
      afterRestarts = restartAndAnswer(taskId, frame.data.data as Record<string, unknown>);
      afterRestarts.catch(() => abort.abort());
    }).catch(async (err: unknown) => {
      await afterRestarts; // its error, if it failed, says more than the aborted read
      throw err;
    });
    const [hubConnections, settled] = await afterRestarts!;
    expect(hubConnections).toBe(1);
    expect(settled).toBe(1);
    const asked = frames.findIndex((f) => f.data.name === 'USER_INPUT_REQUIRED');
    const later = frames.slice(asked + 1).map((f: SseFrame) => f.data.type);
    expect(later).toContain('TOOL_CALL_RESULT');
    expect(later.at(-1)).toBe('RUN_FINISHED');
    expect(later).not.toContain('HEARTBEAT');
  }, 400_000);
});

/** Restarts PostgreSQL 5 times in a row, counts the hub's connections, then answers: the run goes on. */
async function restartAndAnswer(taskId: string, required: Record<string, unknown>): Promise<number[]> {
  for (let i = 0; i < 5; i++) await stack.restartPostgres(500);
  // The hub's backoff is at most 5 s: give it time to be back, then make sure no second one appears.
  const first = await eventually('the LISTEN connection', async () => {
    const n = await hubConnections();
    expect(n).toBeGreaterThanOrEqual(1);
    return n;
  });
  await sleep(6000); // longer than that backoff: a second connection would be open by now
  const settled = await hubConnections();
  const body = { request_id: required.request_id, run_id: required.run_id, input_type: 'text', value: 'Ada' };
  await eventually(
    'the answer',
    async () => {
      const res = await fetch(`${stack.apiUrl}/api/tasks/${taskId}/input`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${who.token}`,
          'X-Agent-Id': who.agentId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    },
    { timeout: 60_000, interval: 1000 },
  );
  return [first, settled];
}

async function hubConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const res = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [EVENT_HUB_APPLICATION],
    );
    return res.rows[0]!.n;
  } finally {
    await client.end();
  }
}
