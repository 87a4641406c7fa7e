import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { readTaskStream, waitForStatus, expectOneTerminal } from '../support/runs.ts';
import { closeTestDb, createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let member: string;
let owner: string;

beforeAll(async () => {
  tenant = await createTenant();
  member = await exchange(tenant.keys.member);
  owner = await exchange(tenant.keys.owner);
});
afterAll(closeTestDb);

const post = (path: string, body: unknown, headers: Record<string, string> = {}, token = member) =>
  call('POST', path, { token, agentId: tenant.agentId, body, headers });

async function runsOfUser(userId: string): Promise<number> {
  return testDb().run.count({ where: { task: { userId, orgId: tenant.orgId } } });
}

describe('run ids on every answer that starts a run', () => {
  it('202 of stream:false and of /api/run/async carry X-Run-Id and X-Task-Id equal to the body', async () => {
    for (const [path, body] of [
      ['/api/run', { ...userMessage('headers on a background run'), stream: false }],
      ['/api/run/async', userMessage('headers on an async run')],
    ] as const) {
      const res = await post(path, body);
      expect(res.status).toBe(202);
      const meta = (await res.json()) as { id: string; task_id: string };
      expect(res.headers.get('x-run-id')).toBe(meta.id);
      expect(res.headers.get('x-task-id')).toBe(meta.task_id);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      await waitForStatus({ token: member, agentId: tenant.agentId }, meta.task_id, 'completed');
    }
  });
});

describe('Idempotency-Key', () => {
  it('a background request repeated with its key returns the same 202 body and starts nothing', async () => {
    const key = randomUUID();
    const body = { ...userMessage('idempotent background run'), stream: false };
    const before = await runsOfUser(tenant.users.member);
    const first = await post('/api/run', body, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const firstBody = await first.json();
    const again = await post('/api/run', body, { 'Idempotency-Key': key });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(firstBody);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-run-id')).toBe((firstBody as { id: string }).id);
    expect(await runsOfUser(tenant.users.member)).toBe(before + 1);
  });

  it('a streamed request repeated with its key re-attaches to the same run from its first event', async () => {
    const key = randomUUID();
    const body = userMessage('idempotent streamed run');
    const first = await post('/api/run', body, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    const firstFrames = withoutHeartbeats(await readSse(first));
    const again = await post('/api/run', body, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-run-id')).toBe(first.headers.get('x-run-id'));
    const againFrames = withoutHeartbeats(await readSse(again));
    expect(againFrames.map((f) => f.id)).toEqual(firstFrames.map((f) => f.id));
    expect(againFrames.map((f) => f.data)).toEqual(firstFrames.map((f) => f.data));
    expect(againFrames[0]!.id).toBe(`${first.headers.get('x-run-id')}:1`);
  });

  it('concurrent requests with one key create exactly one task and one run', async () => {
    const key = randomUUID();
    const body = userMessage('ten racing retries');
    const before = await runsOfUser(tenant.users.member);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post('/api/run/async', body, { 'Idempotency-Key': key })),
    );
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(202);
      ids.add(((await res.json()) as { run_id: string }).run_id);
    }
    expect(ids.size).toBe(1);
    expect(await runsOfUser(tenant.users.member)).toBe(before + 1);
  });

  it('the same key with another body, or on another operation, is 422 and changes nothing', async () => {
    const key = randomUUID();
    const first = await post('/api/run/async', userMessage('the original request'), { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const before = await runsOfUser(tenant.users.member);
    const otherBody = await post('/api/run/async', userMessage('a different request'), { 'Idempotency-Key': key });
    expect(otherBody.status).toBe(422);
    expect(await otherBody.json()).toMatchObject({
      detail: [{ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' }],
    });
    const otherOperation = await post(
      '/api/run',
      { ...userMessage('the original request'), stream: false },
      { 'Idempotency-Key': key },
    );
    expect(otherOperation.status).toBe(422);
    expect(await runsOfUser(tenant.users.member)).toBe(before);
  });

  it('keys are scoped to the user: another user of the org with the same key gets a run of their own', async () => {
    const key = randomUUID();
    const body = userMessage('same key, two users');
    const a = await post('/api/run/async', body, { 'Idempotency-Key': key });
    const b = await post('/api/run/async', body, { 'Idempotency-Key': key }, owner);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(((await a.json()) as { run_id: string }).run_id).not.toBe(((await b.json()) as { run_id: string }).run_id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a refused request stores no key; a malformed key is 400', async () => {
    const key = randomUUID();
    const refused = await post(
      '/api/run/async',
      { messages: [{ role: 'assistant', content: 'not a user turn' }] },
      { 'Idempotency-Key': key },
    );
    expect(refused.status).toBe(400);
    const retried = await post('/api/run/async', userMessage('now a valid request'), { 'Idempotency-Key': key });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const malformed = await post('/api/run/async', userMessage('bad key'), { 'Idempotency-Key': 'has spaces in it' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: expect.stringContaining('Idempotency-Key') });
  });
});

describe('a run stored by an api that died before starting its workflow', () => {
  it('is started by another api process within 30 s and completes; a retry with the key returns it', async () => {
    const doomed = await startApiProcess({ ARS_FAULT: 'after-run-commit' });
    const key = randomUUID();
    const body = userMessage('started by the reconciler');
    const crashed = await fetch(`${doomed.url}/api/run/async`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${member}`,
        'X-Agent-Id': tenant.agentId,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
      },
      body: JSON.stringify(body),
    }).catch((err: Error) => err);
    expect(crashed).toBeInstanceOf(Error); // the process died: no answer at all
    await doomed.close();

    const claim = await testDb().idempotencyKey.findFirstOrThrow({ where: { key } });
    const stored = await testDb().run.findUniqueOrThrow({ where: { id: claim.runId } });
    const storedAt = Date.now();
    expect(stored.status).toBe('pending');
    const caller = { token: member, agentId: tenant.agentId };
    await waitForStatus(caller, stored.taskId, 'completed', 30_000);
    expect(Date.now() - storedAt).toBeLessThan(30_000);
    expectOneTerminal(await readTaskStream(caller, stored.taskId));

    const retried = await post('/api/run/async', body, { 'Idempotency-Key': key });
    expect(retried.status).toBe(202);
    expect(((await retried.json()) as { run_id: string }).run_id).toBe(stored.id);
  });
});
