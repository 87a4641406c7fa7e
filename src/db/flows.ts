import { Prisma } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';
import { terminalStatuses } from '../shared/run-status.ts';

/** Flows (triggers) and their events: what `admin apply` writes and what starting their runs reads. */

/** A trigger's payload as stored (any JSON value). */
export type FlowPayload = Prisma.InputJsonValue;

export interface FlowFields {
  name: string;
  kind: string;
  agentId: string;
  userId: string;
  enabled: boolean;
  senderAccess: string;
  messageTemplate: string;
  taskKeyTemplate: string | null;
  config: Prisma.InputJsonValue;
}

export function findFlowNamed(db: DbOrTx, orgId: string, name: string) {
  return db.flow.findUnique({ where: { orgId_name: { orgId, name } } });
}

export function insertFlow(db: DbOrTx, row: { id: string; orgId: string; secret: string | null } & FlowFields) {
  return db.flow.create({ data: row });
}

export function updateFlow(db: DbOrTx, id: string, change: Partial<FlowFields> & { secret?: string }) {
  return db.flow.update({ where: { id }, data: change });
}

/** The org's flows by name, with their agent's name and user's email; secrets are not read. */
export function listFlowsOfOrg(db: DbOrTx, orgId: string) {
  return db.flow.findMany({
    where: { orgId },
    orderBy: { name: 'asc' },
    omit: { secret: true },
    include: { agent: { select: { name: true } }, user: { select: { email: true } } },
  });
}

/** A flow with what starting its runs needs: its agent (and whether it is customer-facing) and its user's role. */
export function findFlow(db: Db, id: string) {
  return db.flow.findUnique({
    where: { id },
    include: {
      agent: { select: { id: true, name: true, customerFacing: true, modelSettings: true } },
      user: { select: { id: true, role: true } },
    },
  });
}
export type LoadedFlow = NonNullable<Awaited<ReturnType<typeof findFlow>>>;

/** Records a trigger event; false when the flow had it already (the same external id). */
/** Records an event unless the flow has it (by external id, or by payload hash when given); true when new. */
export async function recordFlowEvent(
  db: Db,
  event: {
    flowId: string;
    externalId: string;
    payload: Prisma.InputJsonValue;
    taskKey: string | null;
    payloadHash?: string;
  },
): Promise<boolean> {
  const inserted = await db.$executeRaw`
    INSERT INTO flow_events (flow_id, external_id, payload, task_key, payload_hash)
    VALUES (${event.flowId}, ${event.externalId}, ${JSON.stringify(event.payload)}::jsonb, ${event.taskKey}, ${event.payloadHash ?? null})
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}

export function findFlowEvent(db: Db, flowId: string, externalId: string) {
  return db.flowEvent.findUnique({ where: { flowId_externalId: { flowId, externalId } } });
}

/** The event recorded under `externalId`, or else the one with that payload hash. */
export async function findRecordedFlowEvent(db: Db, flowId: string, externalId: string, payloadHash?: string) {
  return (
    (await findFlowEvent(db, flowId, externalId)) ??
    (payloadHash === undefined
      ? null
      : await db.flowEvent.findUnique({ where: { flowId_payloadHash: { flowId, payloadHash } } }))
  );
}

export async function setFlowEventOutcome(
  db: Db,
  flowId: string,
  externalId: string,
  outcome: { taskId?: string; runId?: string; error?: string },
): Promise<void> {
  await db.flowEvent.update({ where: { flowId_externalId: { flowId, externalId } }, data: outcome });
}

/** Events whose run was not started (a cron tick, or a request that died first), oldest first. */
export function listUnstartedFlowEvents(
  db: Db,
  limit: number,
  createdBefore: Date,
): Promise<{ flowId: string; externalId: string }[]> {
  return sqlOfPool(db).query(
    `SELECT flow_id AS "flowId", external_id AS "externalId" FROM flow_events
     WHERE run_id IS NULL AND error IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2`,
    [createdBefore, limit],
  );
}

/** The task events with this key continue, if one was started. */
export async function taskOfKey(db: Db, flowId: string, key: string): Promise<string | undefined> {
  return (await db.flowTask.findUnique({ where: { flowId_key: { flowId, key } }, select: { taskId: true } }))?.taskId;
}

/** Binds a key to the task its first event started (the task itself was stored with its source). */
export async function bindFlowTask(
  db: Db,
  binding: { flowId: string; key: string | null; taskId: string },
): Promise<void> {
  if (binding.key === null) return;
  await db.flowTask.upsert({
    where: { flowId_key: { flowId: binding.flowId, key: binding.key } },
    create: { flowId: binding.flowId, key: binding.key, taskId: binding.taskId },
    update: {},
  });
}

/** Whether a run the flow started is still unfinished (a cron tick's `skip` overlap). */
export async function flowHasUnfinishedRun(db: Db, flowId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM flow_events e JOIN runs r ON r.id = e.run_id
    WHERE e.flow_id = ${flowId} AND r.status::text <> ALL(${terminalStatuses}::text[])`;
  return (rows[0]?.n ?? 0) > 0;
}

/** Cron flows whose schedule on Temporal may differ from their settings (`schedule_synced` is not `desired`). */
export function listCronFlows(db: Db): Promise<
  {
    id: string;
    name: string;
    enabled: boolean;
    config: unknown;
    scheduleSynced: string | null;
    orgId: string;
    agentId: string;
  }[]
> {
  return sqlOfPool(db).query(
    `SELECT id, name, enabled, config, schedule_synced AS "scheduleSynced", org_id AS "orgId", agent_id AS "agentId" FROM flows WHERE kind = 'cron'`,
  );
}

export async function markScheduleSynced(db: Db, id: string, synced: string): Promise<void> {
  await db.flow.update({ where: { id }, data: { scheduleSynced: synced } });
}

/** Events of messaging flows whose run has ended and whose answer has not been posted back yet. */
export async function listRepliesDue(
  db: Db,
  limit: number,
): Promise<{ flowId: string; externalId: string; orgId: string }[]> {
  const rows = await sqlOfPool(db).query<{ flow_id: string; external_id: string; org_id: string }>(
    `SELECT e.flow_id, e.external_id, f.org_id FROM flow_events e
     JOIN flows f ON f.id = e.flow_id AND f.kind = 'messaging'
     JOIN runs r ON r.id = e.run_id AND r.status::text = ANY($2::text[])
     WHERE e.reply_started_at IS NULL
     ORDER BY e.created_at LIMIT $1`,
    [limit, terminalStatuses],
  );
  return rows.map((r) => ({ flowId: r.flow_id, externalId: r.external_id, orgId: r.org_id }));
}

export async function markReplyStarted(db: Db, flowId: string, externalId: string): Promise<void> {
  await db.flowEvent.update({
    where: { flowId_externalId: { flowId, externalId } },
    data: { replyStartedAt: new Date() },
  });
}

/** What posting a run's answer back needs: the event's payload, the run's outcome and its last assistant message. */
export async function replyMaterial(db: Db, flowId: string, externalId: string) {
  const event = await db.flowEvent.findUnique({
    where: { flowId_externalId: { flowId, externalId } },
    include: { flow: { select: { config: true, orgId: true } } },
  });
  if (!event?.runId) return undefined;
  const [run, answer] = await Promise.all([
    db.run.findUnique({ where: { id: event.runId }, select: { status: true, error: true } }),
    db.message.findFirst({
      where: { runId: event.runId, role: 'assistant' },
      orderBy: { position: 'desc' },
      select: { content: true },
    }),
  ]);
  return {
    orgId: event.flow.orgId,
    payload: event.payload,
    config: event.flow.config,
    status: run?.status,
    error: run?.error,
    answer: answer?.content,
  };
}
