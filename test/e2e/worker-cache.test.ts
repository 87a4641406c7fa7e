import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { exchange } from '../support/http.ts';
import { freeListenPort } from '../support/ports.ts';
import {
  answer,
  expectOneTerminal,
  readTaskStream,
  waitForPending,
  type Caller,
  type PendingRequestBody,
} from '../support/runs.ts';
import { createTenant } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * A worker whose workflow cache holds 2 runs (WORKER_MAX_CACHED_WORKFLOWS), on a queue of its own
 * beside the suite's stack: 5 runs wait for input at once, so at least 3 are evicted, and each
 * goes on by replay when its answer comes.
 */
const CACHE = 2;
const RUNS = 5;
const queue = `cache-${randomBytes(3).toString('hex')}`;
let api: ApiProcess;
let worker: WorkerProcess;
let metricsUrl: string;
let member: Caller;

beforeAll(async () => {
  const metricsPort = await freeListenPort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  [api, worker] = await Promise.all([
    startApiProcess({ TEMPORAL_TASK_QUEUE: queue }),
    startWorkerProcess(queue, {
      WORKER_MAX_CACHED_WORKFLOWS: String(CACHE),
      WORKER_METRICS_PORT: String(metricsPort),
    }),
  ]);
  const tenant = await createTenant();
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), api?.close()]);
});

/** The worker's Prometheus sample `name` (summed over its label sets). */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => new RegExp(`^(temporal_)?${name}(_total)?(\\{| )`).test(l))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe('a worker with a workflow cache of 2', () => {
  it('keeps 2 of 5 waiting runs in memory and finishes all 5 when they are answered, the evicted ones by replay', async () => {
    // One at a time, each to its wait: the cache then holds waiting runs only, the ones evicted are idle.
    const tasks: string[] = [];
    const pending: PendingRequestBody[] = [];
    for (let i = 0; i < RUNS; i++) {
      const res = await fetch(`${api.url}/api/run`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${member.token}`,
          'X-Agent-Id': member.agentId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({
          stream: false,
          messages: [
            {
              role: 'user',
              content: `Run ${i}.\n/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: `Name ${i}?` })}`,
            },
          ],
        }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
      tasks.push(((await res.json()) as { task_id: string }).task_id);
      pending.push(await waitForPending(member, tasks[i]!));
    }
    await eventually('the worker to have evicted the runs beyond its cache', async () => {
      expect(await metric('sticky_cache_size')).toBeLessThanOrEqual(CACHE);
      expect(await metric('sticky_cache_total_forced_eviction')).toBeGreaterThanOrEqual(RUNS - CACHE);
    });

    await Promise.all(
      pending.map(async (request, i) => {
        const res = await answer(member, tasks[i]!, {
          request_id: request.request_id,
          run_id: request.run_id,
          input_type: 'text',
          value: `answer ${i}`,
        });
        expect(res.status, await res.clone().text()).toBe(200);
      }),
    );
    for (const [i, taskId] of tasks.entries()) {
      const frames = await readTaskStream(member, taskId);
      expect(expectOneTerminal(frames)).toMatchObject({ type: 'RUN_FINISHED' });
      const result = frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data;
      expect(JSON.parse(result.content as string)).toMatchObject({ status: 'answered', value: `answer ${i}` });
    }
    expect(await metric('sticky_cache_size')).toBeLessThanOrEqual(CACHE);
    // The evicted runs were not in the cache when their answer came: they went on by replay.
    expect(await metric('sticky_cache_miss')).toBeGreaterThanOrEqual(RUNS - CACHE);
  });
});
