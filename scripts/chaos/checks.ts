import { isDeepStrictEqual } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { TemporalConnectionOptions } from '../../src/connections/temporal.ts';
import { auth, type Caller, type ClientRun, type Received } from './client.ts';

/** What the checks found, summed over all runs. */
export interface Verdict {
  runs: number;
  /** Runs without RUN_FINISHED at the client, or not `completed` in the database. */
  notCompleted: number;
  /** Stored events the client never received. */
  lost: number;
  /** Events the client received more than once. */
  duplicated: number;
  /** Events that arrived after a later event of the same run. */
  reordered: number;
  /** Events whose payload at the client differs from the durable history. */
  historyMismatch: number;
  /** Runs whose final message, put together from its deltas, is not the RUN_FINISHED result text. */
  textMismatch: number;
  /** Runs in the database that no client started or followed, or that were never finished. */
  orphans: number;
  /** Informative: messages left unfinished by a killed model attempt (a retry streams a new message). */
  abandonedMessages: number;
  problems: string[];
}

interface HistoryRecord {
  id: string;
  payload: Received['event'];
}

/** Checks every run the clients followed against the durable history and the database. */
export async function checkRuns(
  who: Caller,
  where: { databaseUrl: string; temporalAddress: string },
  orgId: string,
  runs: ClientRun[],
): Promise<Verdict> {
  const v: Verdict = {
    runs: runs.length,
    notCompleted: 0,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    historyMismatch: 0,
    textMismatch: 0,
    orphans: 0,
    abandonedMessages: 0,
    problems: [],
  };
  const problem = (run: ClientRun, what: string) =>
    v.problems.push(`${run.runId ?? `(key ${run.idempotencyKey})`}: ${what}`);
  for (const run of runs) {
    if (!run.runId || run.terminal?.type !== 'RUN_FINISHED') {
      v.notCompleted++;
      problem(
        run,
        `not completed at the client (terminal ${run.terminal?.type ?? 'none'}${run.terminal?.message ? `: ${String(run.terminal.message)}` : ''}; last client errors: ${run.errors.slice(-2).join(' | ')})`,
      );
      if (!run.runId) continue;
    }
    const history = await readHistory(who, run.runId);
    const stored = new Map(history.map((h) => [Number(h.id.slice(h.id.lastIndexOf(':') + 1)), h.payload]));
    const seen = new Set<number>();
    let highest = 0;
    for (const { seq, event } of run.received) {
      if (seen.has(seq)) {
        v.duplicated++;
        problem(run, `event ${seq} received again`);
        continue;
      }
      if (seq < highest) {
        v.reordered++;
        problem(run, `event ${seq} arrived after event ${highest}`);
      }
      seen.add(seq);
      highest = Math.max(highest, seq);
      if (!isDeepStrictEqual(stored.get(seq), event)) {
        v.historyMismatch++;
        problem(run, `event ${seq} differs from the history`);
      }
    }
    for (let seq = 1; seq <= history.length; seq++) {
      if (!stored.has(seq)) problem(run, `the history has no event ${seq} (seq not gap-free)`);
      if (!seen.has(seq)) {
        v.lost++;
        problem(run, `event ${seq} (${stored.get(seq)?.type}) never reached the client`);
      }
    }
    if (seen.size > history.length) {
      v.historyMismatch += seen.size - history.length;
      problem(run, `the client got ${seen.size} events, the history has ${history.length}`);
    }
    const text = checkText(
      run.received.map((r) => r.event),
      run.terminal,
    );
    v.abandonedMessages += text.abandoned;
    if (text.problem) {
      v.textMismatch++;
      problem(run, text.problem);
    }
  }
  const finishedAtClient = new Set(runs.filter((r) => r.terminal?.type === 'RUN_FINISHED').map((r) => r.runId));
  const known = new Set(runs.map((r) => r.runId).filter((id) => id !== undefined));
  for (const row of await storedRuns(where.databaseUrl, orgId)) {
    if (!known.has(row.id)) {
      v.orphans++;
      v.problems.push(`${row.id}: orphan run (status ${row.status}) that no client started or followed`);
    } else if (row.status !== 'completed' && finishedAtClient.has(row.id)) {
      v.notCompleted++;
      v.problems.push(`${row.id}: RUN_FINISHED at the client but ${row.status} in the database`);
    }
  }
  for (const id of await workflowsStillOpen({ address: where.temporalAddress })) {
    v.orphans++;
    v.problems.push(`${id}: workflow still open in Temporal after every run finished`);
  }
  return v;
}

/**
 * Workflows still open once they have had time to close: after its terminal event a run's
 * workflow may still be finishing (its workspace snapshot, an activity retried after a killed
 * worker, visibility catching up), so only one open for a minute counts as an orphan.
 */
async function workflowsStillOpen(temporal: TemporalConnectionOptions, graceMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const open = await openWorkflows(temporal);
    if (open.length === 0 || Date.now() > deadline) return open;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Workflows Temporal still runs (every run's workflow is named by its run id). */
async function openWorkflows(temporal: TemporalConnectionOptions): Promise<string[]> {
  const connection = await Connection.connect(temporal);
  try {
    const ids: string[] = [];
    for await (const wf of new Client({ connection }).workflow.list({ query: 'ExecutionStatus = "Running"' }))
      ids.push(wf.workflowId);
    return ids;
  } finally {
    await connection.close();
  }
}

/** The final message (RUN_FINISHED result.message_id), from its deltas, must be the result text exactly. */
function checkText(
  events: Received['event'][],
  terminal: Received['event'] | undefined,
): { problem?: string; abandoned: number } {
  const deltas = new Map<string, string>();
  const ended = new Set<string>();
  for (const e of events) {
    const id = e.message_id as string | undefined;
    if (e.type === 'TEXT_MESSAGE_CONTENT' && id) deltas.set(id, (deltas.get(id) ?? '') + String(e.delta));
    if (e.type === 'TEXT_MESSAGE_END' && id) ended.add(id);
  }
  const result = terminal?.result as { text?: string; message_id?: string } | undefined;
  const abandoned = [...deltas.keys()].filter((id) => id !== result?.message_id).length;
  if (!result) return { abandoned };
  if (!result.message_id || !deltas.has(result.message_id))
    return { problem: 'the result names no streamed message', abandoned };
  if (deltas.get(result.message_id) !== result.text)
    return { problem: 'streamed text != result text (duplicated or lost deltas)', abandoned };
  if (!ended.has(result.message_id)) return { problem: 'the final message has no TEXT_MESSAGE_END', abandoned };
  return { abandoned };
}

async function readHistory(who: Caller, runId: string): Promise<HistoryRecord[]> {
  const records: HistoryRecord[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const query = new URLSearchParams({ limit: '1000', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${who.apiUrl}/api/runs/${runId}/events?${query}`, { headers: auth(who) });
    if (res.status === 429 || res.status === 503) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      continue;
    }
    if (res.status !== 200) throw new Error(`history of ${runId}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { events: HistoryRecord[]; next_cursor: string | null };
    records.push(...page.events);
    cursor = page.next_cursor;
    if (page.events.length === 0 && cursor !== null)
      throw new Error(`history of ${runId} has no tail: the run is not finished`);
  }
  return records;
}

/** Every run of the org, from the database. */
async function storedRuns(databaseUrl: string, orgId: string): Promise<{ id: string; status: string }[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = await client.query<{ id: string; status: string }>(
      'SELECT r.id, r.status::text AS status FROM runs r JOIN tasks t ON t.id = r.task_id WHERE t.org_id = $1',
      [orgId],
    );
    return rows.rows;
  } finally {
    await client.end();
  }
}
