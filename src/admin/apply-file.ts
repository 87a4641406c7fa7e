import { z } from 'zod';
import { agentModelSettingsSchema } from '../shared/agent-settings.ts';
import { cronConfigSchema, flowKinds, messagingConfigSchema, repositoryConfigSchema } from '../shared/flows.ts';
import { webhookEventTypes } from '../shared/webhook-delivery-types.ts';
import { emailSchema, roleSchema } from './users.ts';
import { originsSchema } from './widget-keys.ts';

/**
 * The file read by `admin apply`: the desired orgs, users, agents and API
 * keys, keyed by natural keys so that applying it again changes nothing:
 * an org by its name, a user by email within the org, an agent by name
 * within the org, a key by (user email, key name) among the user's
 * unrevoked keys, a widget key by name among the org's unrevoked ones.
 */
const nameSchema = z.string().trim().min(1, 'must not be empty').max(200);

const creditsSchema = z
  .union([
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^\d{1,19}$/, 'must be a non-negative whole number'),
  ])
  .transform((v) => BigInt(v))
  .refine((v) => v <= 9_223_372_036_854_775_807n, 'is too large');

/** The org's limit of concurrent runs (docs/admin.md "Concurrent runs"). */
export const maxConcurrentRunsSchema = z.number().int().min(1).max(1_000_000);

const userSchema = z.strictObject({
  email: emailSchema,
  role: roleSchema,
  /** Display name; when given it is kept in sync, when left out an existing name is kept. */
  name: z.string().trim().max(200).optional(),
});

const agentSchema = z.strictObject({
  name: nameSchema,
  /** When left out: false for a new agent, unchanged for an existing one. */
  customer_facing: z.boolean().optional(),
  /** Replaces the agent's model settings when given; `{}` for a new agent when left out. */
  settings: agentModelSettingsSchema.optional(),
  /** Emails of users of the org with explicit access. When given, the access list becomes exactly this. */
  access: z.array(emailSchema).optional(),
});

const keySchema = z.strictObject({
  /** Email of the key's user, in this org. */
  user: emailSchema,
  name: nameSchema,
});

const webhookSchema = z.strictObject({
  /** Identifies the subscription within the org. */
  name: nameSchema,
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
  /** Event types to send; all of them when left out. */
  events: z.array(z.enum(webhookEventTypes)).min(1).optional(),
  /** Name of an agent of the org: only its runs. Left out: every agent's. */
  agent: nameSchema.optional(),
  /** A Standard Webhooks secret (`whsec_` + base64 of 24–64 bytes); generated when a subscription is created without one. */
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'must be whsec_ followed by base64 of 24 to 64 bytes')
    .optional(),
  disabled: z.boolean().optional(),
});

const flowSchema = z
  .strictObject({
    /** Identifies the flow within the org. */
    name: nameSchema,
    kind: z.enum(flowKinds),
    /** Name of an agent of the org; a messaging flow needs a customer-facing agent. */
    agent: nameSchema,
    /** Email of the org user the flow's runs belong to (their tasks list shows them). */
    user: emailSchema,
    enabled: z.boolean().optional(),
    /**
     * Inbound flows: what a run started by an outside sender (a Slack user, an email's sender, an issue's author) may
     * use. `guest` (default): a guest's tools (no agent memory, no workspace). `user`: the flow user's own.
     */
    sender_access: z.enum(['guest', 'user']).optional(),
    /** The run's user message, with {{path}} placeholders filled from the trigger's payload. */
    message: z.string().min(1).max(20_000),
    /** When given, events with the same rendered key continue one task (e.g. "{{issue.number}}"). */
    task_key: z.string().min(1).max(500).optional(),
    /** Verifies inbound requests: a `whsec_` secret for webhook and email (generated when left out), any string for repository (generated when left out), Slack's signing secret for messaging (required when the flow is created; left out later, the stored one is kept). */
    secret: z.string().min(16).max(200).optional(),
    cron: cronConfigSchema.optional(),
    repository: repositoryConfigSchema.optional(),
    messaging: messagingConfigSchema.optional(),
  })
  .superRefine((flow, ctx) => {
    for (const kind of ['cron', 'repository', 'messaging'] as const) {
      if ((flow.kind === kind) !== (flow[kind] !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [kind],
          message:
            flow.kind === kind
              ? `a ${kind} flow needs its ${kind} settings`
              : `only a ${kind} flow takes ${kind} settings`,
        });
      }
    }
    if (flow.kind === 'cron' && flow.secret)
      ctx.addIssue({ code: 'custom', path: ['secret'], message: 'a cron flow takes no secret' });
    if (
      (flow.kind === 'webhook' || flow.kind === 'email') &&
      flow.secret &&
      !/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/.test(flow.secret)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['secret'],
        message: 'must be whsec_ followed by base64 of 24 to 64 bytes',
      });
    }
  });

const widgetKeySchema = z.strictObject({
  /** Names the key within the org: applying again finds the org's unrevoked key of this name. */
  name: nameSchema,
  /** Name of a customer-facing agent of this org (in the file or already stored). */
  agent: nameSchema,
  /** Browser origins allowed to use the key; kept in sync when the key exists. */
  origins: originsSchema,
  /** true revokes the org's unrevoked key of this name (if any). */
  revoked: z.boolean().optional(),
  /** Credits the key's visitors may use a day (UTC); left out: the service's WIDGET_KEY_CREDITS_PER_DAY. */
  credits_per_day: z.number().int().min(0).max(100_000_000).optional(),
});

/** What one org holds, as the file states it (everything but the org's own name and credits). */
const orgContents = {
  users: z.array(userSchema).default([]),
  agents: z.array(agentSchema).default([]),
  keys: z.array(keySchema).default([]),
  /** Outbound run webhooks of the org (docs/api.md "Outbound webhooks"). */
  webhooks: z.array(webhookSchema).default([]),
  /** Triggers that start runs (docs/api.md "Flows"). */
  flows: z.array(flowSchema).default([]),
  /** Publishable keys of the embedded chat widget (docs/widget.md). */
  widget_keys: z.array(widgetKeySchema).default([]),
};

type OrgContents = z.output<z.ZodObject<typeof orgContents>>;

function checkOrgContents(org: OrgContents, ctx: z.RefinementCtx) {
  noDuplicates(ctx, org.users, 'users', (u) => u.email, 'email');
  noDuplicates(ctx, org.agents, 'agents', (a) => a.name, 'agent name');
  noDuplicates(ctx, org.keys, 'keys', (k) => `${k.user}\n${k.name}`, 'key name for this user');
  noDuplicates(ctx, org.webhooks, 'webhooks', (w) => w.name, 'webhook name');
  noDuplicates(ctx, org.flows, 'flows', (f) => f.name, 'flow name');
  noDuplicates(ctx, org.widget_keys, 'widget_keys', (k) => k.name, 'widget key name');
  org.agents.forEach((a, i) => {
    const access = a.access ?? [];
    const seen = new Set<string>();
    access.forEach((email, j) => {
      if (seen.has(email))
        ctx.addIssue({ code: 'custom', path: ['agents', i, 'access', j], message: `duplicate email ${email}` });
      seen.add(email);
    });
  });
}

const orgSchema = z
  .strictObject({
    name: nameSchema,
    /** Initial credit balance: only used when the org is created. */
    credits: creditsSchema.optional(),
    /**
     * Runs of the org that may be open at once (a plan's limit; the operator's, like credits): more are accepted and
     * wait `pending`, oldest first. `null`: unlimited. Left out: unchanged (unlimited for a new org).
     */
    max_concurrent_runs: maxConcurrentRunsSchema.nullable().optional(),
    ...orgContents,
  })
  .superRefine(checkOrgContents);

/**
 * One org's contents without its name and credits: the body of POST /api/admin/apply, which
 * applies it to the caller's org (by id) through the same code as `admin apply`.
 */
export const orgDocumentSchema = z.strictObject(orgContents).superRefine(checkOrgContents).meta({ id: 'OrgDocument' });
export type OrgDocument = z.infer<typeof orgDocumentSchema>;

export const applyFileSchema = z
  .strictObject({
    /** Lets editors find a JSON schema; ignored. */
    $schema: z.string().optional(),
    orgs: z.array(orgSchema),
  })
  .superRefine((file, ctx) => noDuplicates(ctx, file.orgs, 'orgs', (o) => o.name, 'org name'));

export type ApplyFile = z.infer<typeof applyFileSchema>;
export type ApplyOrg = ApplyFile['orgs'][number];

function noDuplicates<T>(ctx: z.RefinementCtx, items: T[], field: string, key: (t: T) => string, what: string) {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [field, i], message: `duplicate ${what}` });
    seen.add(k);
  });
}
