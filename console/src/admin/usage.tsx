/**
 * Usage (#/admin/usage): what the org's runs used per UTC day and agent (GET /api/admin/usage) — runs,
 * failures, tokens, credits — per agent and in total, the credits left and how long they last; a banner
 * when they run low (no credits, or fewer than 3 days at the last 7 days' rate; the API decides).
 */
import type { Usage, UsableAgent } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { errorText, type Session } from '../session.ts';

const WINDOWS = [7, 30, 90] as const;
const DAY_MS = 86_400_000;
const number = (n: number) => n.toLocaleString();
const count = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;

/** Midnight UTC `days - 1` days ago: a window of `days` UTC days, today included. */
function sinceDays(days: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10);
}

/** A bar as wide as `value` is of `max` (the number beside it says the same in words). */
function Bar({ value, max }: { value: number; max: number }) {
  const width = max > 0 ? Math.max(value > 0 ? 1 : 0, Math.round((value / max) * 100)) : 0;
  return (
    <span class="bar" aria-hidden="true">
      <span style={{ width: `${width}%` }} />
    </span>
  );
}

/** The low-credit banner, when the API says credits are low. */
export function CreditWarning({ credits }: { credits: Usage['credits'] }) {
  if (!credits.low || !credits.warning) return null;
  return (
    <p role="alert" class="warning" data-testid="credit-warning">
      {credits.warning}
    </p>
  );
}

/** The banner on every admin screen: today's window only, the cheapest read of the credit outlook. */
export function AdminCreditWarning({ session }: { session: Session }) {
  const [credits, setCredits] = useState<Usage['credits']>();
  useEffect(() => {
    session.client.admin.usage({ since: sinceDays(1) }).then(
      (u) => setCredits(u.credits),
      () => setCredits(undefined),
    );
  }, [session]);
  return credits ? <CreditWarning credits={credits} /> : null;
}

export function UsageScreen({ session }: { session: Session }) {
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(30);
  const [agent, setAgent] = useState('');
  const [agents, setAgents] = useState<UsableAgent[]>([]);
  const [usage, setUsage] = useState<Usage>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    session.client.agents.list().then(
      (list) => setAgents(list.agents),
      () => setAgents([]),
    );
  }, [session]);
  useEffect(() => {
    session.client.admin.usage({ since: sinceDays(days), agent_id: agent || undefined }).then(
      (u) => (setUsage(u), setError(undefined)),
      (err) => setError(errorText(err)),
    );
  }, [session, days, agent]);
  const maxDay = Math.max(0, ...(usage?.days.map((d) => d.credits) ?? []));
  const maxAgent = Math.max(0, ...(usage?.agents.map((a) => a.credits) ?? []));
  const credits = usage?.credits;
  return (
    <section aria-labelledby="usage-heading" class="usage">
      <h3 id="usage-heading">Usage</h3>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {credits && <CreditWarning credits={credits} />}
      {credits && (
        <p data-testid="credits-left" class="card">
          <strong>{number(Number(credits.balance))}</strong> credits left
          {credits.days_left !== null
            ? ` · ${number(credits.daily_rate)} a day over the last 7 days · about ${count(credits.days_left, 'day', 'days')} left`
            : ' · none used in the last 7 days'}
        </p>
      )}
      <form class="form inline" onSubmit={(e) => e.preventDefault()}>
        <label>
          Window
          <select
            aria-label="Window"
            value={days}
            onChange={(e) => setDays(Number(e.currentTarget.value) as (typeof WINDOWS)[number])}
          >
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select aria-label="Usage of agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      {!usage ? (
        <p role="status">Loading…</p>
      ) : (
        <>
          <p data-testid="usage-totals">
            {count(usage.totals.runs, 'run', 'runs')} ({number(usage.totals.failed_runs)} failed) ·{' '}
            {number(usage.totals.input_tokens)} input and {number(usage.totals.output_tokens)} output tokens ·{' '}
            {count(usage.totals.credits, 'credit', 'credits')} (UTC days; a run counts on the day it started)
          </p>
          <h4>By agent</h4>
          <UsageTable
            label="Usage by agent"
            rows={usage.agents.map((a) => ({ key: a.agent_id, first: a.agent_name, ...a }))}
            firstHeader="Agent"
            max={maxAgent}
          />
          <h4>By day</h4>
          <UsageTable
            label="Usage by day"
            rows={[...usage.days]
              .sort((a, b) => b.day.localeCompare(a.day)) // newest day first, agents still by name
              .map((d) => ({ key: `${d.day} ${d.agent_id}`, first: d.day, second: d.agent_name, ...d }))}
            firstHeader="Day (UTC)"
            secondHeader="Agent"
            max={maxDay}
          />
        </>
      )}
    </section>
  );
}

interface Row {
  key: string;
  first: string;
  second?: string;
  runs: number;
  failed_runs: number;
  input_tokens: number;
  output_tokens: number;
  credits: number;
}

function UsageTable(props: { label: string; rows: Row[]; firstHeader: string; secondHeader?: string; max: number }) {
  if (props.rows.length === 0) return <p class="note">No runs in this window.</p>;
  return (
    <div class="table-wrap">
      <table class="events usage-table" aria-label={props.label}>
        <thead>
          <tr>
            <th scope="col">{props.firstHeader}</th>
            {props.secondHeader && <th scope="col">{props.secondHeader}</th>}
            <th scope="col">Runs</th>
            <th scope="col">Failed</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.key} data-usage-row={r.key}>
              <td>{r.first}</td>
              {props.secondHeader && <td>{r.second}</td>}
              <td>{number(r.runs)}</td>
              <td>{number(r.failed_runs)}</td>
              <td>{number(r.input_tokens)}</td>
              <td>{number(r.output_tokens)}</td>
              <td class="credits">
                <Bar value={r.credits} max={props.max} /> {number(r.credits)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
