import { createHash } from 'node:crypto';
import type { RunEventInput } from '../shared/events.ts';
import type { MessageParts } from '../shared/message-parts.ts';
import { commentKey, FINISHED_KEY, STOPPING_KEY } from '../shared/run-end.ts';
import { isTerminalStatus, terminalStatuses, type RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import {
  cancelOpenRequests,
  insertInputRequest,
  resolveInputRequest,
  type OpenRequest,
  type ResolveRequest,
} from './approvals.ts';
import type { Db } from './client.ts';
import { appendMessagesWith } from './conversation.ts';
import { lockRunLog, lockRunLogToEnd, RunGoneError, stampEvents, type LockedLog } from './event-log.ts';
import { checkStatusWrite, statusesMovingTo } from './run-status-writes.ts';
import { inPgTransaction, sqlOfPool, type Sql } from './sql.ts';

/** One atomic step of a run, as the workflow describes it. */
export interface RunStep {
  runId: string;
  /** Deterministic per workflow step, so a retried activity writes nothing twice. */
  key: string;
  status?: RunStatus;
  events: RunEventInput[];
  /** Events the step streamed and had not written yet (a model step storing the run's end): stored first, before the bill's USAGE and `events`. */
  streamed?: RunEventInput[];
  /** A message that joins the task's conversation (an assistant answer, a steering comment). */
  message?: { taskId: string; role: 'user' | 'assistant' | 'tool' | 'system'; content: string; parts?: MessageParts };
  /** A question for a human that the run now waits on. */
  openRequest?: OpenRequest;
  /** The end of such a wait: answered, dismissed, or cancelled with the run. */
  resolveRequest?: ResolveRequest;
  /** A run ended from outside its workflow (abandoned-runs.ts): every question and approval it left open is cancelled. */
  cancelOpenRequests?: boolean;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
  /**
   * A terminal step stored only if nothing got in first: no cancel (its STOPPING write) and no
   * steering comment the run has not applied yet (a model step ending the run, model-step.ts).
   */
  unlessInterrupted?: boolean;
}

/** What storing a step did: the run's mode when it stored the run's end; why it stored nothing, when it refused. */
export interface StepStored {
  endedMode?: string;
  /** `run_ended`: the run had ended, and its log is final. `interrupted`: see RunStep.unlessInterrupted. */
  refused?: 'run_ended' | 'interrupted';
}

/** The run's bill, priced from its total usage (its steps' tokens plus those of discarded attempts). */
export interface Bill {
  usage: TokenUsage;
  credits: number;
  /** The USAGE event, written before the step's own events. */
  event: RunEventInput;
}

/**
 * Stores a run step in one transaction: its events (idempotent by key), its status and
 * outcome, the human request it opens or resolves, its conversation message and, on the
 * terminal step, the bill (`price` gets the discarded attempts' tokens). Returns the run's
 * mode when this call stored the run's end, undefined otherwise (also for a repeated step).
 */
export async function storeRunStep(
  db: Db,
  step: RunStep,
  price?: (discarded: TokenUsage) => Bill,
): Promise<StepStored> {
  if (!price && isPlainStep(step)) return storePlainStep(db, step);
  // On the pg pool: a run step is the hottest transaction of the worker (see sql.ts).
  return inPgTransaction(db, async (sql) => {
    const terminal = step.status !== undefined && isTerminalStatus(step.status);
    const toEnd = price
      ? await lockRunLogToEnd(sql, step.runId, step.key, {
          stoppingKey: STOPPING_KEY,
          commentKeyPrefix: commentKey(''),
        })
      : undefined;
    const log = toEnd ?? (await lockRunLog(sql, step.runId, step.key));
    if (log.earlier !== null) return {}; // an earlier attempt committed this step
    // Nothing is written to a run that ended: its status and log are final (a model step storing
    // `executing` while the run was cancelled under it; a cancel's STOPPING after the run completed;
    // a second end).
    if (isTerminalStatus(log.status)) return { refused: 'run_ended' };
    checkStatusWrite(log.status, step.status);
    if (step.unlessInterrupted && toEnd?.interrupted) return { refused: 'interrupted' };
    const bill = price && toEnd ? price(toEnd.discarded) : undefined;
    // Billed once per run: a run billed before keeps its figures and its org is not debited again.
    const charge = toEnd?.billed === false ? bill : undefined;
    if (step.openRequest) await insertInputRequest(sql, step.runId, step.openRequest);
    if (step.resolveRequest) await resolveInputRequest(sql, step.resolveRequest);
    if (step.cancelOpenRequests) await cancelOpenRequests(sql, step.runId);
    if (step.message) await storeStepMessage(sql, step, step.message);
    // Last before the closing statement: the org's row (shared by all its runs' terminal writes) stays locked only for it and the commit.
    // Not inside closeStep: the events are stamped before that statement, so its wait for this lock would count as relay lag.
    if (charge) await debitOrg(sql, step.runId, charge.credits);
    const mode = await closeStep(sql, log, step, terminal, charge, [
      ...(step.streamed ?? []),
      ...(bill ? [bill.event] : []),
      ...step.events,
    ]);
    return terminal ? { endedMode: mode } : {};
  });
}

/** What a plain step may set; a step with anything else (a message, a request, an outcome, a field added later) takes the transaction. */
const PLAIN_STEP_FIELDS = new Set<string>(['runId', 'key', 'status', 'events']);

/** A step that only moves the status (not to an end) and adds events: a model step's `executing`, a pause, a cancel's STOPPING. */
function isPlainStep(step: RunStep): boolean {
  const ends = step.status !== undefined && isTerminalStatus(step.status);
  return (
    !ends &&
    step.events.length > 0 &&
    Object.entries(step).every(([field, value]) => value === undefined || PLAIN_STEP_FIELDS.has(field))
  );
}

/**
 * A plain step in one statement, which is its own transaction: it locks the run row (writers of a
 * run's log take turns, so commit order is seq order), checks for an earlier write of the key and
 * for the run's end, and writes the row and the events only when neither is there; one round trip
 * instead of BEGIN, lock, write and COMMIT. The check for the key reads the statement's snapshot,
 * which may miss a write of the same key committed while this one waited for the lock: the
 * unique (run_id, idempotency_key) index then fails this statement, and the retry finds it.
 */
async function storePlainStep(db: Db, step: RunStep): Promise<StepStored> {
  const { values } = stampEvents({ runId: step.runId, lastSeq: 0 }, step.events, step.key); // seqs are numbered in the statement
  const [locked] = await sqlOfPool(db).query<{ status: RunStatus; earlier: number | null }>(
    `WITH locked AS (
       SELECT r.id, r.last_event_seq, r.status::text AS status,
         (SELECT e.seq FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $2) AS earlier
       FROM runs r WHERE r.id = $1 FOR UPDATE OF r
     ), go AS (
       SELECT id, last_event_seq FROM locked
       WHERE earlier IS NULL AND status <> ALL ($5::text[]) AND ($11::text[] IS NULL OR status = ANY ($11::text[]))
     ), run AS (
       UPDATE runs r SET updated_at = now(), status = COALESCE($3::"RunStatus", r.status), last_event_seq = go.last_event_seq + $4::int
       FROM go WHERE r.id = go.id
     ), appended AS (
       INSERT INTO run_events (run_id, seq, type, name, payload, idempotency_key, created_at)
       SELECT go.id, go.last_event_seq + e.ord::int, e.type, e.name, e.payload::jsonb, e.key, $6::timestamptz
       FROM go, unnest($7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS e(type, name, payload, key, ord)
     )
     SELECT status, earlier FROM locked`,
    [
      step.runId,
      `${step.key}#0`,
      step.status ?? null,
      step.events.length,
      terminalStatuses,
      ...values,
      statusesMovingTo(step.status),
    ],
  );
  if (!locked) throw new RunGoneError(step.runId);
  if (locked.earlier !== null) return {}; // an earlier attempt committed this step
  if (isTerminalStatus(locked.status)) return { refused: 'run_ended' };
  checkStatusWrite(locked.status, step.status); // the statement wrote nothing when this throws
  return {};
}

/**
 * The step's last statement: the run row (status, outcome, bill, the end of its log) and the
 * step's events, stamped just before the commit that notifies them.
 */
async function closeStep(
  sql: Sql,
  log: LockedLog,
  step: RunStep,
  terminal: boolean,
  charge: Bill | undefined,
  events: RunEventInput[],
): Promise<string> {
  const stamped = stampEvents(log, events, step.key);
  const [run] = await sql.query<{ mode: string }>(
    `WITH run AS (
       UPDATE runs SET updated_at = now(), status = COALESCE($2::"RunStatus", status),
         finished_at = CASE WHEN $3::boolean THEN now() ELSE finished_at END,
         result = COALESCE($4::jsonb, result), error = COALESCE($5::jsonb, error),
         billed_at = CASE WHEN $6::int IS NULL THEN billed_at ELSE now() END, credits_used = COALESCE($6::int, credits_used),
         input_tokens = COALESCE($7::int, input_tokens), output_tokens = COALESCE($8::int, output_tokens),
         last_event_seq = $9::int + $10::int
       WHERE id = $1 RETURNING mode::text
     ), appended AS (
       INSERT INTO run_events (run_id, seq, type, name, payload, idempotency_key, created_at)
       SELECT $1, $9::int + e.ord::int, e.type, e.name, e.payload::jsonb, e.key, $11::timestamptz
       FROM unnest($12::text[], $13::text[], $14::text[], $15::text[]) WITH ORDINALITY AS e(type, name, payload, key, ord)
     )
     SELECT mode FROM run`,
    [
      step.runId,
      step.status ?? null,
      terminal,
      jsonOrNull(step.result),
      jsonOrNull(step.error),
      charge?.credits ?? null,
      charge?.usage.inputTokens ?? null,
      charge?.usage.outputTokens ?? null,
      log.lastSeq,
      events.length,
      ...stamped.values,
    ],
  );
  if (!run) throw new RunGoneError(step.runId);
  return run.mode;
}

const jsonOrNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** The message id comes from (run, key), so a retried step finds its message instead of adding another. */
async function storeStepMessage(sql: Sql, step: RunStep, message: NonNullable<RunStep['message']>): Promise<void> {
  const id = `msg_${createHash('sha256').update(`${step.runId}\n${step.key}`).digest('hex').slice(0, 32)}`;
  // A step with events was deduplicated by their key; one with none checks for its message.
  if (step.events.length === 0 && (await sql.query('SELECT 1 FROM messages WHERE id = $1', [id])).length > 0) return;
  const { taskId, role, content, parts } = message;
  await appendMessagesWith(sql, taskId, step.runId, [{ id, role, content, parts }]);
}

/** Debits the run's org for the run's bill (once per run: see storeRunStep). */
async function debitOrg(sql: Sql, runId: string, credits: number): Promise<void> {
  await sql.query(
    `UPDATE orgs SET credit_balance = credit_balance - $2::int
     WHERE id = (SELECT t.org_id FROM runs r JOIN tasks t ON t.id = r.task_id WHERE r.id = $1)`,
    [runId, credits],
  );
}

/** The result a completed run stored, when the step with `FINISHED_KEY` stored its end (a retried model step that had ended the run). */
export async function findCompletedEnd(db: Db, runId: string): Promise<Record<string, unknown> | undefined> {
  const [run] = await sqlOfPool(db).query<{ result: Record<string, unknown> | null }>(
    `SELECT r.result FROM runs r
     WHERE r.id = $1 AND r.status = 'completed' AND EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $2)`,
    [runId, `${FINISHED_KEY}#0`],
  );
  return run?.result ?? undefined;
}
