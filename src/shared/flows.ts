import { z } from 'zod';
import { secretNameSchema } from './secret-names.ts';

/**
 * Flows: triggers bound to an agent that start its runs. The kinds, their settings (`config`),
 * and the template that turns a trigger's payload into the run's user message.
 */
export const flowKinds = ['cron', 'webhook', 'repository', 'email', 'messaging'] as const;
export type FlowKind = (typeof flowKinds)[number];

/** Kinds whose events arrive over HTTP, verified with the flow's secret. */
export const inboundKinds: readonly FlowKind[] = ['webhook', 'repository', 'email', 'messaging'];

export const cronOverlaps = ['skip', 'enqueue', 'allow_all'] as const;

export const cronConfigSchema = z.strictObject({
  /** A cron expression (5 fields, e.g. "0 9 * * 1-5") or an interval in seconds. */
  schedule: z.union([
    z.string().min(9).max(200),
    z.strictObject({ every_seconds: z.number().int().min(1).max(31_536_000) }),
  ]),
  timezone: z.string().min(1).max(100).default('UTC'),
  /** While a run this flow started is unfinished, a tick is `skip`ped (default), `enqueue`d on the flow's one task, or starts another run (`allow_all`). */
  overlap: z.enum(cronOverlaps).default('skip'),
  /** Ticks missed while Temporal was down are still taken if they are this recent. */
  catchup_window_seconds: z.number().int().min(10).max(31_536_000).default(300),
});
export type CronConfig = z.infer<typeof cronConfigSchema>;

export const repositoryConfigSchema = z.strictObject({
  /** `event` or `event.action`, e.g. "issues.opened", "pull_request.opened", "push". */
  events: z.array(z.string().regex(/^[a-z_]+(\.[a-z_]+)?$/)).min(1),
});

/**
 * Answers are posted to the operator's SLACK_API_URL with the org's own bot token: no field here
 * names a worker environment variable or chooses where a credential is sent.
 */
export const messagingConfigSchema = z.strictObject({
  /** The org secret holding the Slack bot token (`xoxb-…`) that posts the answers. */
  bot_token_secret: secretNameSchema,
});

/** `{{a.b.c}}` placeholders of a template, filled from the payload (missing values become ""). */
export function renderTemplate(template: string, payload: unknown): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
    const value = path
      .split('.')
      .reduce<unknown>(
        (at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
        payload,
      );
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The Temporal Schedule id of a cron flow. */
export const flowScheduleId = (flowId: string) => `flow-${flowId}`;
