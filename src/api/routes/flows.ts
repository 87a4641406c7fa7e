import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { isDomainError } from '../../shared/domain-error.ts';
import { badRequest, HttpError, unauthorized } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { acceptFlowEvent, inboundFlow, type FlowPayload } from '../services/flow-runs.ts';
import { verifyGithub, verifySlack, verifyStandardWebhook } from '../services/flow-signatures.ts';

const params = z.object({ flow_id: z.string().min(1).max(100) });

const acceptedSchema = z
  .object({
    task_id: z.string().nullable(),
    run_id: z.string().nullable(),
    duplicate: z.boolean().describe('The flow had this event already (same external id): nothing new was started'),
    skipped: z.string().optional(),
    ignored: z
      .string()
      .optional()
      .describe('Why the event starts nothing (a repository event the flow does not take, a Slack message from a bot)'),
  })
  .meta({ id: 'FlowEventAccepted' });

const inboundResponses = {
  202: { description: 'Accepted: the run was started (or had been, for a repeated event)', schema: acceptedSchema },
  400: {
    description: 'A messaging flow whose agent is not customer-facing, or a message template that renders empty',
    schema: errorSchema,
  },
  401: { description: 'Missing, invalid or stale signature', schema: errorSchema },
  404: { description: 'No enabled flow of this kind with this id', schema: errorSchema },
  422: errorResponses[422],
  429: {
    description:
      'Too many refused requests (401, 404) from this client address (FLOW_FAILURES_PER_ADDRESS in EXCHANGE_FAILURE_WINDOW_SECONDS), ' +
      'or too many verified events for this flow (FLOW_EVENTS_PER_MINUTE); wait `Retry-After` seconds',
    schema: errorSchema,
    headers: { 'Retry-After': 'Seconds until requests from this address are accepted again' },
  },
};

/**
 * The flow a request names, found and verified by `verify`. Refusals (401, 404) count against the
 * client address, and an address that has used up its budget gets 429 first, signed or not: guessing
 * flow ids or secrets costs an attacker the door, not the flow's real sender.
 */
async function verifiedFlow<T extends { id: string }>(
  deps: ApiDeps,
  req: Request,
  verify: () => Promise<T>,
): Promise<T> {
  const address = req.ip ?? 'unknown';
  await deps.rateLimits.flows.check(address);
  let flow: T;
  try {
    flow = await verify();
  } catch (err) {
    if ((err instanceof HttpError && err.status === 401) || isDomainError(err, 'not_found'))
      await deps.rateLimits.flows.failed(address);
    throw err;
  }
  // Signed is not enough: a leaked secret or a replayed body must not start runs without end.
  await deps.rateLimits.consumeBudget('flow-events', flow.id);
  return flow;
}

const raw = (req: Request) => req.rawBody ?? '';

/** The enabled flow of `kind` whose Standard Webhooks signature the request carries (webhook and email flows). */
async function signedFlow(db: ApiDeps['db'], req: Request, flowId: string, kind: 'webhook' | 'email') {
  const flow = await inboundFlow(db, flowId, kind);
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, req.get(h) ?? undefined]),
  );
  if (!verifyStandardWebhook(flow.secret, raw(req), headers)) throw unauthorized('Invalid or stale webhook signature');
  return flow;
}
const header = (req: Request, name: string) => req.get(name) ?? undefined;
const payloadOf = (req: Request) => (req.body ?? {}) as FlowPayload;

const emailSchema = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  subject: z.string(),
  text: z.string(),
  message_id: z.string().min(1).max(500).optional(),
  attachments: z.array(z.object({ filename: z.string(), content_type: z.string(), size: z.number().int() })).optional(),
});

/** Inbound triggers of flows: no JWT; each request is verified with its flow's secret. */
export const flowRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/flows/{flow_id}/webhook',
    operationId: 'flowWebhook',
    summary: 'Trigger a webhook flow',
    description:
      'Any JSON body, signed per Standard Webhooks with the flow’s `whsec_` secret (`webhook-id`, `webhook-timestamp` within 5 ' +
      'minutes, `webhook-signature`). The `webhook-id` is the event’s id: a repeat (a sender’s retry, a replay) starts ' +
      'nothing and answers with the first run. The flow’s message template renders the user message from the body.',
    tags: ['flows'],
    auth: 'none',
    params,
    bodyDoc: z.record(z.string(), z.unknown()),
    status: 202,
    responses: inboundResponses,
    async handler({ req, params: { flow_id } }, deps) {
      const flow = await verifiedFlow(deps, req, () => signedFlow(deps.db, req, flow_id, 'webhook'));
      return acceptFlowEvent(deps, flow, header(req, 'webhook-id')!, payloadOf(req));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/flows/{flow_id}/email',
    operationId: 'flowEmail',
    summary: 'Trigger an email flow (an inbound-mail parse webhook)',
    description:
      'The JSON of an inbound-mail parse webhook: `{from, to, subject, text, message_id?, attachments?: [{filename, content_type, size}]}`, ' +
      'signed per Standard Webhooks with the flow’s secret. The event id is `message_id` when given, else the `webhook-id`.',
    tags: ['flows'],
    auth: 'none',
    params,
    bodyDoc: emailSchema,
    status: 202,
    responses: inboundResponses,
    async handler({ req, params: { flow_id } }, deps) {
      const flow = await verifiedFlow(deps, req, () => signedFlow(deps.db, req, flow_id, 'email'));
      const mail = emailSchema.safeParse(req.body);
      if (!mail.success)
        throw badRequest(
          `Not an inbound email: ${mail.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      return acceptFlowEvent(deps, flow, mail.data.message_id ?? header(req, 'webhook-id')!, mail.data as FlowPayload);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/flows/{flow_id}/github',
    operationId: 'flowRepositoryEvent',
    summary: 'Trigger a repository flow (a GitHub-style webhook)',
    description:
      'A GitHub webhook delivery: `X-Hub-Signature-256` (HMAC-SHA256 of the body with the flow’s secret), `X-GitHub-Event`, ' +
      '`X-GitHub-Delivery` (the event id), JSON body. Only events the flow lists (`issues.opened`, `pull_request.opened`, ' +
      '`push`…) start a run; others answer 202 with `ignored`. `ping` answers 202 with `ignored`. GitHub signs only the body, with no ' +
      'timestamp: a body the flow has taken before, under any delivery id, is a repeat (202, `duplicate: true`, the first run).',
    tags: ['flows'],
    auth: 'none',
    params,
    bodyDoc: z.record(z.string(), z.unknown()),
    status: 202,
    responses: inboundResponses,
    async handler({ req, params: { flow_id } }, deps) {
      const flow = await verifiedFlow(deps, req, async () => {
        const found = await inboundFlow(deps.db, flow_id, 'repository');
        if (!verifyGithub(found.secret, raw(req), header(req, 'x-hub-signature-256')))
          throw unauthorized('Invalid X-Hub-Signature-256');
        return found;
      });
      const event = header(req, 'x-github-event') ?? '';
      const action =
        typeof (req.body as { action?: unknown }).action === 'string'
          ? (req.body as { action: string }).action
          : undefined;
      const wanted = (flow.config as { events: string[] }).events;
      if (!wanted.includes(event) && !(action && wanted.includes(`${event}.${action}`))) {
        return {
          task_id: null,
          run_id: null,
          duplicate: false,
          ignored: `${action ? `${event}.${action}` : event || 'an event without X-GitHub-Event'} is not one of ${wanted.join(', ')}`,
        };
      }
      const delivery = header(req, 'x-github-delivery');
      if (!delivery) throw badRequest('X-GitHub-Delivery is required');
      // Only the body is signed (no timestamp): the same body under a new delivery id is a replay, not a new event.
      const payloadHash = createHash('sha256').update(raw(req)).digest('hex');
      return acceptFlowEvent(deps, flow, delivery, { event, ...(req.body as object) } as FlowPayload, payloadHash);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/flows/{flow_id}/slack',
    operationId: 'flowSlackEvent',
    summary: 'Trigger a messaging flow (the Slack Events API)',
    description:
      'Slack’s Events API request URL: `X-Slack-Signature` (v0, the flow’s signing secret) and `X-Slack-Request-Timestamp` ' +
      'within 5 minutes. `url_verification` is answered with its challenge (200). A `message` or `app_mention` event starts ' +
      'a run on the task of its Slack thread (one task per thread; a busy thread queues); its answer is posted back in the ' +
      'thread with `chat.postMessage` when the run ends. Messages from bots are ignored. The event id is `event_id`. Only ' +
      'a customer-facing agent may serve a messaging flow: otherwise 400.',
    tags: ['flows'],
    auth: 'none',
    params,
    bodyDoc: z.record(z.string(), z.unknown()),
    status: 202,
    responses: {
      ...inboundResponses,
      200: { description: 'url_verification: the challenge', schema: z.object({ challenge: z.string() }) },
    },
    async handler({ req, res, params: { flow_id } }, deps) {
      const flow = await verifiedFlow(deps, req, async () => {
        const found = await inboundFlow(deps.db, flow_id, 'messaging');
        if (
          !verifySlack(
            found.secret,
            raw(req),
            header(req, 'x-slack-request-timestamp'),
            header(req, 'x-slack-signature'),
          )
        )
          throw unauthorized('Invalid or stale Slack signature');
        return found;
      });
      const body = req.body as SlackBody;
      if (body.type === 'url_verification') {
        res.status(200).json({ challenge: body.challenge ?? '' });
        return undefined;
      }
      if (!flow.agent.customerFacing)
        throw badRequest(
          `Agent ${flow.agent.name} is not customer-facing; a messaging flow may only use a customer-facing agent`,
        );
      const event = body.event;
      if (body.type !== 'event_callback' || !event || !['message', 'app_mention'].includes(event.type ?? '')) {
        return {
          task_id: null,
          run_id: null,
          duplicate: false,
          ignored: `not a message event (${body.type ?? 'no type'})`,
        };
      }
      if (event.bot_id || event.subtype)
        return {
          task_id: null,
          run_id: null,
          duplicate: false,
          ignored: 'messages from bots and message edits start nothing',
        };
      if (!body.event_id) throw badRequest('event_id is required');
      const thread = event.thread_ts ?? event.ts;
      return acceptFlowEvent(deps, flow, body.event_id, { ...(body as object), thread_ts: thread } as FlowPayload);
    },
  }),
];

interface SlackBody {
  type?: string;
  challenge?: string;
  event_id?: string;
  event?: {
    type?: string;
    text?: string;
    user?: string;
    channel?: string;
    ts?: string;
    thread_ts?: string;
    bot_id?: string;
    subtype?: string;
  };
}
