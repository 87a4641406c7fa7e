import type { Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/client.ts';
import { creditStanding, usageByDayAndAgent, type UsageRow } from '../../db/usage.ts';
import { creditOutlook, RECENT_DAYS } from '../../shared/credit-outlook.ts';
import { invalid, notFound } from '../../shared/domain-error.ts';
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, type UsageQuery } from '../schemas/usage.ts';
import { requireOrgAdmin } from './org-admin-access.ts';

const DAY_MS = 86_400_000;

function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(`\`${name}\` is not a valid time`);
  return date;
}

type Figures = Pick<UsageRow, 'runs' | 'failedRuns' | 'inputTokens' | 'outputTokens' | 'credits'>;
const none = (): Figures => ({ runs: 0, failedRuns: 0, inputTokens: 0, outputTokens: 0, credits: 0 });

function add(sum: Figures, row: Figures): Figures {
  sum.runs += row.runs;
  sum.failedRuns += row.failedRuns;
  sum.inputTokens += row.inputTokens;
  sum.outputTokens += row.outputTokens;
  sum.credits += row.credits;
  return sum;
}

const figures = (f: Figures) => ({
  runs: f.runs,
  failed_runs: f.failedRuns,
  input_tokens: f.inputTokens,
  output_tokens: f.outputTokens,
  credits: f.credits,
});

/**
 * GET /api/admin/usage: what the org's runs used per UTC day and agent in a window (runs count on the
 * day they were created, as GET /api/runs filters them), per agent, in total, and the credits left
 * with how long they last at the recent rate (src/shared/credit-outlook.ts). Owners and admins only.
 */
export async function orgUsage(db: Db, caller: Caller, query: UsageQuery, now = new Date()) {
  requireOrgAdmin(caller, "see the organization's usage");
  const until = time(query.until, 'until') ?? now;
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = time(query.since, 'since') ?? new Date(todayStart - (USAGE_DEFAULT_DAYS - 1) * DAY_MS);
  if (since >= until) throw invalid('`since` must be before `until`');
  if (until.getTime() - since.getTime() > USAGE_MAX_DAYS * DAY_MS)
    throw invalid(`The window may span at most ${USAGE_MAX_DAYS} days`);
  const [rows, standing] = await Promise.all([
    usageByDayAndAgent(db, { orgId: caller.orgId, since, until, agentId: query.agent_id }),
    creditStanding(db, caller.orgId, new Date(now.getTime() - RECENT_DAYS * DAY_MS)),
  ]);
  if (!standing) throw notFound('The organization is gone');
  const perAgent = new Map<string, { name: string; sum: Figures }>();
  const totals = none();
  for (const row of rows) {
    const agent = perAgent.get(row.agentId) ?? { name: row.agentName, sum: none() };
    perAgent.set(row.agentId, agent);
    add(agent.sum, row);
    add(totals, row);
  }
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    days: rows.map((r) => ({ day: r.day, agent_id: r.agentId, agent_name: r.agentName, ...figures(r) })),
    agents: [...perAgent]
      .map(([id, a]) => ({ agent_id: id, agent_name: a.name, ...figures(a.sum) }))
      .sort((a, b) => b.credits - a.credits || a.agent_name.localeCompare(b.agent_name)),
    totals: figures(totals),
    credits: creditOutlook(standing.balance, standing.usedSince, standing.createdAt, now),
  };
}
