import { ApplicationFailure, Context } from '@temporalio/activity';
import { postOutbound, RefusedTargetError } from '../outbound/post.ts';
import { findFlow, recordFlowEvent, replyMaterial } from '../db/flows.ts';
import { renderTemplate } from '../shared/flows.ts';
import type { ActivityDeps } from './deps.ts';
import { orgSecretReader } from './org-secrets.ts';

/** Slack answers that no retry can fix. */
const SLACK_FINAL_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'msg_too_long',
]);

/** The activities of flows: a cron tick becomes an event; a messaging run's answer is posted back. */
export function createFlowActivities({ db, config, logger }: ActivityDeps) {
  const readOrgSecret = orgSecretReader(db, config);
  return {
    async recordFlowTick({
      flowId,
      tickId,
      scheduledAt,
    }: {
      flowId: string;
      tickId: string;
      scheduledAt: string;
    }): Promise<void> {
      const flow = await findFlow(db, flowId);
      if (!flow || !flow.enabled) return; // deleted or disabled since the schedule fired
      const payload = { flow: flow.name, scheduled_at: scheduledAt };
      const taskKey = flow.taskKeyTemplate ? renderTemplate(flow.taskKeyTemplate, payload) || null : null;
      await recordFlowEvent(db, { flowId, externalId: tickId, payload, taskKey });
    },

    async postFlowReply({ flowId, externalId }: { flowId: string; externalId: string }): Promise<void> {
      const material = await replyMaterial(db, flowId, externalId);
      if (!material) return;
      // A config stored before bot_token_secret is refused here, never read as anything else.
      const { bot_token_secret: secretName } = material.config as { bot_token_secret?: unknown };
      if (typeof secretName !== 'string')
        throw ApplicationFailure.nonRetryable("the flow's messaging.bot_token_secret is not set", 'SlackRefused');
      const token = await readOrgSecret(material.orgId, secretName, "the flow's Slack bot token");
      const event = (material.payload as { event?: { channel?: string } }).event;
      const thread = (material.payload as { thread_ts?: string }).thread_ts;
      const text =
        material.status === 'completed' && material.answer
          ? material.answer
          : `Sorry, I could not answer this one (${material.status}${material.error ? `: ${(material.error as { message?: string }).message ?? ''}` : ''}).`;
      const res = await postOutbound(`${config.flows.slackApiUrl}/chat.postMessage`, {
        headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ channel: event?.channel, thread_ts: thread, text }),
        timeoutMs: 20_000,
        signal: Context.current().cancellationSignal,
        allowPrivate: config.outbound.privateTargets === 'allow',
      }).catch((err: unknown) => {
        throw err instanceof RefusedTargetError ? ApplicationFailure.nonRetryable(err.message, 'SlackRefused') : err;
      });
      if (res.status === 429 || res.status >= 500)
        throw ApplicationFailure.retryable(`Slack answered ${res.status}`, 'SlackUnavailable');
      const body = parsedJson(res.text) as { ok?: boolean; error?: string };
      if (!body.ok) {
        const error = body.error ?? `HTTP ${res.status}`;
        if (SLACK_FINAL_ERRORS.has(error))
          throw ApplicationFailure.nonRetryable(`Slack refused the reply: ${error}`, 'SlackRefused');
        throw ApplicationFailure.retryable(`Slack refused the reply: ${error}`, 'SlackUnavailable');
      }
      logger.info({ flowId, externalId }, 'posted the run’s answer to Slack');
    },
  };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
