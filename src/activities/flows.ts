import { ApplicationFailure } from '@temporalio/activity';
import { findFlow, recordFlowEvent, replyMaterial } from '../db/flows.ts';
import { renderTemplate } from '../shared/flows.ts';
import type { ActivityDeps } from './deps.ts';

/** Slack answers that no retry can fix. */
const SLACK_FINAL_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'channel_not_found', 'not_in_channel', 'is_archived', 'msg_too_long']);

/** The activities of flows: a cron tick becomes an event; a messaging run's answer is posted back. */
export function createFlowActivities({ db, config, env, logger }: ActivityDeps) {
  return {
    async recordFlowTick({ flowId, tickId, scheduledAt }: { flowId: string; tickId: string; scheduledAt: string }): Promise<void> {
      const flow = await findFlow(db, flowId);
      if (!flow || !flow.enabled) return; // deleted or disabled since the schedule fired
      const payload = { flow: flow.name, scheduled_at: scheduledAt };
      const taskKey = flow.taskKeyTemplate ? renderTemplate(flow.taskKeyTemplate, payload) || null : null;
      await recordFlowEvent(db, { flowId, externalId: tickId, payload, taskKey });
    },

    async postFlowReply({ flowId, externalId }: { flowId: string; externalId: string }): Promise<void> {
      const material = await replyMaterial(db, flowId, externalId);
      if (!material) return;
      const { bot_token_env: tokenEnv, api_url: apiUrl } = material.config as { bot_token_env: string; api_url?: string };
      const token = env[tokenEnv];
      if (!token) throw ApplicationFailure.nonRetryable(`environment variable ${tokenEnv} (the flow's Slack bot token) is not set`, 'SlackRefused');
      const event = (material.payload as { event?: { channel?: string } }).event;
      const thread = (material.payload as { thread_ts?: string }).thread_ts;
      const text =
        material.status === 'completed' && material.answer
          ? material.answer
          : `Sorry, I could not answer this one (${material.status}${material.error ? `: ${(material.error as { message?: string }).message ?? ''}` : ''}).`;
      const res = await fetch(`${(apiUrl ?? config.flows.slackApiUrl).replace(/\/$/, '')}/chat.postMessage`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ channel: event?.channel, thread_ts: thread, text }),
        signal: AbortSignal.timeout(20_000),
      });
      if (res.status === 429 || res.status >= 500) throw ApplicationFailure.retryable(`Slack answered ${res.status}`, 'SlackUnavailable');
      const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
      if (!body.ok) {
        const error = body.error ?? `HTTP ${res.status}`;
        if (SLACK_FINAL_ERRORS.has(error)) throw ApplicationFailure.nonRetryable(`Slack refused the reply: ${error}`, 'SlackRefused');
        throw ApplicationFailure.retryable(`Slack refused the reply: ${error}`, 'SlackUnavailable');
      }
      logger.info({ flowId, externalId }, 'posted the run’s answer to Slack');
    },
  };
}
