import type { Priority } from '@temporalio/common';

/**
 * Temporal task-queue priority keys of run workflows (1 first, the server's default is 3 of 1–5).
 * A person watching a streamed run goes ahead of work nobody is watching.
 */
export const runPriorityKeys = {
  /** A streamed run (POST /api/run with stream, AG-UI): someone is watching it. */
  interactive: 1,
  /** A background run (stream: false, /api/run/async, MCP, A2A, a queued or repaired start). */
  background: 3,
  /** A run a flow started (a webhook, cron, email or chat event). */
  flow: 4,
} as const;

export type RunPriorityClass = keyof typeof runPriorityKeys;

/**
 * The Priority of a workflow done for an org: its runs, its webhook deliveries, its flows' replies
 * (a cron flow's tick is started by a Temporal Schedule, whose action takes none). The org is the
 * fairness key, so one org's burst shares the task queues with the others instead of filling them.
 * Activities inherit it.
 */
export function runPriority(orgId: string, kind: RunPriorityClass): Priority {
  return { fairnessKey: orgId, priorityKey: runPriorityKeys[kind] };
}
