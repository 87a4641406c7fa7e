import { AgentRunClient, PermissionError, type Usage } from '@agent-run/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { loadConfig } from '../../src/config.ts';
import { creditsFor } from '../../src/shared/credits.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { apiUrl, call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/**
 * GET /api/admin/usage against the running stack: the figures are those of runs made here (two
 * billed runs, one failed run on another agent), per day, per agent and in total; the credits
 * left and the low-credit warning follow the balance; members get 403; another org's agent
 * shows nothing.
 */
const usage = { prompt_tokens: 1500, completion_tokens: 700 };
const config = () => loadConfig({ ...process.env, JWT_SECRET: inject('jwtSecret') });
const client = (apiKey: string) => new AgentRunClient({ baseUrl: apiUrl(), apiKey });
const today = () => new Date().toISOString().slice(0, 10);

let fake: FakeOpenAi;
let tenant: Tenant;
let owner: AgentRunClient;
let brokenId: string;
let perRun: number;
let runIds: string[];

/** Runs `message` on `agentId` streamed to its end; answers its run id and last event type. */
async function run(key: string, agentId: string, message: string) {
  const res = await call('POST', '/api/run', { token: await exchange(key), agentId, body: userMessage(message) });
  expect(res.status).toBe(200);
  const frames = withoutHeartbeats(await readSse(res));
  return { runId: frames[0]!.data.run_id as string, last: frames.at(-1)!.data.type };
}

beforeAll(async () => {
  fake = await startFakeOpenAi({ chunks: ['Counted.'], usage });
  tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'fake-model' });
  owner = client(tenant.keys.owner);
  const org = await owner.admin.org();
  // An agent whose model key is not set: its runs fail at once (MODEL_CONFIG_ERROR), billed nothing.
  const applied = await applyFile(
    testDb(),
    parseApplyFile({
      orgs: [
        {
          name: org.name,
          agents: [
            {
              name: 'broken',
              settings: {
                provider: 'openai-compatible',
                base_url: fake.baseUrl,
                model: 'm',
                api_key_env: 'ARS_TEST_UNSET_KEY',
              },
            },
          ],
        },
      ],
    }),
  );
  brokenId = applied.orgs[0]!.agents['broken']!;
  perRun = creditsFor(
    { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
    config().creditsPer1kTokens,
  );
  expect(perRun).toBeGreaterThan(0);
  const runs = [
    await run(tenant.keys.member, tenant.agentId, 'first'),
    await run(tenant.keys.member, tenant.agentId, 'second'),
    await run(tenant.keys.owner, brokenId, 'fails'),
  ];
  expect(runs.map((r) => r.last)).toEqual(['RUN_FINISHED', 'RUN_FINISHED', 'RUN_ERROR']);
  runIds = runs.map((r) => r.runId);
});

afterAll(async () => fake?.close());

describe('usage per day and agent', () => {
  it('sums the runs made here per day, per agent and in total, as their USAGE events billed them', async () => {
    const stored = await testDb().run.findMany({ where: { id: { in: runIds } } });
    expect(stored.map((r) => r.creditsUsed).sort()).toEqual([0, perRun, perRun]);
    const agentRow = {
      agent_id: tenant.agentId,
      agent_name: 'agent',
      runs: 2,
      failed_runs: 0,
      input_tokens: 2 * usage.prompt_tokens,
      output_tokens: 2 * usage.completion_tokens,
      credits: 2 * perRun,
    };
    const brokenRow = {
      agent_id: brokenId,
      agent_name: 'broken',
      runs: 1,
      failed_runs: 1,
      input_tokens: 0,
      output_tokens: 0,
      credits: 0,
    };
    const got = await owner.admin.usage();
    expect(got.days).toEqual([
      { day: today(), ...agentRow },
      { day: today(), ...brokenRow },
    ]);
    expect(got.agents).toEqual([agentRow, brokenRow]);
    expect(got.totals).toEqual({
      runs: 3,
      failed_runs: 1,
      input_tokens: 2 * usage.prompt_tokens,
      output_tokens: 2 * usage.completion_tokens,
      credits: 2 * perRun,
    });
    // The default window: 30 UTC days, today included, up to now.
    expect(got.since).toBe(new Date(Date.parse(today()) - 29 * 86_400_000).toISOString());
    expect(Date.parse(got.until)).toBeLessThanOrEqual(Date.now());

    const balance = (await testDb().org.findUniqueOrThrow({ where: { id: tenant.orgId } })).creditBalance;
    // The org is younger than a day: the recent rate is what it used, a day.
    expect(got.credits).toEqual({
      balance: balance.toString(),
      daily_rate: 2 * perRun,
      days_left: Math.floor((Number(balance) / (2 * perRun)) * 10) / 10,
      low: false,
      warning: null,
    });
  });

  it('filters by agent and by window; an agent of another org shows nothing', async () => {
    const one = await owner.admin.usage({ agent_id: brokenId });
    expect(one.days.map((d) => d.agent_name)).toEqual(['broken']);
    expect(one.totals).toMatchObject({ runs: 1, failed_runs: 1, credits: 0 });

    const other = await createTenant();
    const foreign = await owner.admin.usage({ agent_id: other.agentId });
    expect(foreign.days).toEqual([]);
    expect(foreign.totals).toEqual({ runs: 0, failed_runs: 0, input_tokens: 0, output_tokens: 0, credits: 0 });
    // ...and that org's owner sees none of this org's runs.
    expect((await client(other.keys.owner).admin.usage()).totals.runs).toBe(0);

    const yesterday = new Date(Date.parse(today()) - 86_400_000).toISOString().slice(0, 10);
    const past = await owner.admin.usage({ since: yesterday, until: today() });
    expect(past.days).toEqual([]);
    expect(past.until).toBe(`${today()}T00:00:00.000Z`);
  });

  it('says when credits run low or out', async () => {
    // Enough for half a day at today's rate: low.
    await testDb().org.update({ where: { id: tenant.orgId }, data: { creditBalance: BigInt(perRun) } });
    const low = (await owner.admin.usage()).credits;
    expect(low).toMatchObject({ balance: String(perRun), days_left: 0.5, low: true });
    expect(low.warning).toMatch(/running low: \d+ left, about 0\.5 days/);
    await testDb().org.update({ where: { id: tenant.orgId }, data: { creditBalance: 0n } });
    const out = (await owner.admin.usage()).credits as Usage['credits'];
    expect(out).toMatchObject({ balance: '0', days_left: 0, low: true });
    expect(out.warning).toMatch(/No credits left/);
    await testDb().org.update({ where: { id: tenant.orgId }, data: { creditBalance: 100_000n } });
  });

  it('is for owners and admins: a member gets 403; a window the wrong way round or too long is 400', async () => {
    await expect(client(tenant.keys.member).admin.usage()).rejects.toBeInstanceOf(PermissionError);
    const token = await exchange(tenant.keys.owner);
    const get = (query: string) => call('GET', `/api/admin/usage?${query}`, { token });
    const backwards = await get(`since=${today()}&until=2020-01-01`);
    expect(backwards.status).toBe(400);
    expect(((await backwards.json()) as { detail: string }).detail).toMatch(/`since` must be before `until`/);
    const long = await get('since=2020-01-01&until=2026-01-01');
    expect(long.status).toBe(400);
    expect(((await long.json()) as { detail: string }).detail).toMatch(/at most 366 days/);
    expect((await get('since=yesterday')).status).toBe(422);
  });
});
