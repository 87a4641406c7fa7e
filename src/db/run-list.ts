import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from './client.ts';
import { newestFirst } from './order.ts';
import type { RunClient } from '../shared/run-client.ts';
import type { RunStatus } from '../shared/run-status.ts';

export interface RunListFilter {
  orgId: string;
  /** The caller; their runs' questions and (below) the approvals they may decide make `needs_you`. */
  userId: string;
  /** Owners and admins: every run of the org, and any pending approval needs them. */
  admin: boolean;
  /** Statuses asked for; `needsYou` adds the runs waiting on the caller. Neither: every status. */
  statuses?: RunStatus[];
  needsYou?: boolean;
  runId?: string;
  agentId?: string;
  startedBy?: string;
  source?: { kind: 'api' | 'widget' | 'flow' | RunClient } | { flowName: string };
  since?: Date;
  until?: Date;
  after?: { createdAt: Date; id: string };
  limit: number;
}

/**
 * What makes a run wait on the caller: a pending question of a task they started, or a pending
 * approval they may decide (owners and admins: any; others: a non-sensitive one of their own task).
 */
function waitingOn(userId: string, admin: boolean): Prisma.RunWhereInput {
  const own: Prisma.RunWhereInput = {
    task: { userId },
    inputRequests: {
      some: { status: 'pending', OR: [{ approval: { is: null } }, { approval: { is: { sensitive: false } } }] },
    },
  };
  return admin ? { OR: [own, { approvals: { some: { status: 'pending' } } }] } : own;
}

/** The caller's visibility: owners and admins the org's runs; others runs of their own tasks, on agents they were granted. */
function visible(f: RunListFilter): Prisma.TaskWhereInput {
  return f.admin
    ? { orgId: f.orgId }
    : { orgId: f.orgId, userId: f.userId, agent: { access: { some: { userId: f.userId } } } };
}

function sourceWhere(source: NonNullable<RunListFilter['source']>): Prisma.RunWhereInput {
  if ('flowName' in source) return { task: { source: { path: ['flow_name'], equals: source.flowName } } };
  if (source.kind === 'flow') return { task: { NOT: { source: { equals: Prisma.DbNull } } } };
  if (source.kind === 'widget') return { task: { source: { equals: Prisma.DbNull }, user: { visitor: true } } };
  if (source.kind === 'api')
    return { client: null, task: { source: { equals: Prisma.DbNull }, user: { visitor: false } } };
  return { client: source.kind };
}

/** A page of the runs the filter lets the caller see, newest first (created_at, then id), with what an item shows. */
export async function listVisibleRuns(db: Db, f: RunListFilter) {
  const statusOr: Prisma.RunWhereInput[] = [
    ...(f.statuses?.length ? [{ status: { in: f.statuses } }] : []),
    ...(f.needsYou ? [waitingOn(f.userId, f.admin)] : []),
  ];
  const where: Prisma.RunWhereInput = {
    AND: [
      {
        task: {
          ...visible(f),
          AND: [
            f.agentId === undefined ? {} : { agentId: f.agentId },
            f.startedBy === undefined ? {} : { userId: f.startedBy },
          ],
        },
      },
      f.source === undefined ? {} : sourceWhere(f.source),
      f.runId === undefined ? {} : { id: f.runId },
      statusOr.length ? { OR: statusOr } : {},
      f.since ? { createdAt: { gte: f.since } } : {},
      f.until ? { createdAt: { lt: f.until } } : {},
      f.after
        ? { OR: [{ createdAt: { lt: f.after.createdAt } }, { createdAt: f.after.createdAt, id: { lt: f.after.id } }] }
        : {},
    ],
  };
  return db.run.findMany({
    where,
    orderBy: newestFirst,
    take: f.limit,
    select: {
      id: true,
      taskId: true,
      status: true,
      mode: true,
      client: true,
      createdAt: true,
      finishedAt: true,
      inputTokens: true,
      outputTokens: true,
      creditsUsed: true,
      task: {
        select: {
          title: true,
          agentId: true,
          source: true,
          agent: { select: { name: true } },
          user: { select: { id: true, name: true, email: true, visitor: true } },
        },
      },
      inputRequests: {
        where: { status: 'pending' },
        select: { approval: { select: { sensitive: true, status: true } } },
      },
    },
  });
}
