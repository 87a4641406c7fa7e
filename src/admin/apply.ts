import { inAdminTransaction } from '../db/admin-lock.ts';
import {
  deleteAgentAccess,
  findAgentByName,
  insertAgent,
  insertAgentAccess,
  listAgentsWithAccess,
  updateAgent,
} from '../db/agents.ts';
import { findActiveApiKeyNamed } from '../db/api-keys.ts';
import type { Db, Tx } from '../db/client.ts';
import { findOrg, findOrgsNamed, insertOrg, setOrgMaxConcurrentRuns, type Org } from '../db/orgs.ts';
import { listFlowsOfOrg } from '../db/flows.ts';
import { emailsOfUsers, insertUser, listUsersOfOrg, updateUser, type Role } from '../db/users.ts';
import { newId } from '../shared/ids.ts';
import { createApiKey } from './api-keys.ts';
import { applyFlows, type AppliedFlow } from './apply-flows.ts';
import { applyWebhooks, type AppliedWebhook } from './apply-webhooks.ts';
import { type ApplyFile, type ApplyOrg, applyFileSchema, type OrgDocument } from './apply-file.ts';
import { type Actor, checkAgentSettings, checkRoleChanges } from './org-roles.ts';
import { formatIssues } from '../shared/zod-issues.ts';
import { AdminError } from './errors.ts';
import { stableJson } from './stable-json.ts';
import { applyWidgetKeys, type AppliedWidgetKey } from './apply-widget-keys.ts';
import { checkToolServerSecrets } from './tool-server-secrets.ts';

export interface AppliedKey {
  user: string;
  name: string;
  id: string;
  prefix: string;
  /** The full key: only present when the key was created by this apply. */
  key?: string;
}

export interface AppliedOrg {
  name: string;
  id: string;
  credits: string;
  /** Email → user id, for the users listed in the file. */
  users: Record<string, string>;
  /** Agent name → agent id, for the agents listed in the file. */
  agents: Record<string, string>;
  keys: AppliedKey[];
  webhooks: AppliedWebhook[];
  flows: AppliedFlow[];
  widget_keys: AppliedWidgetKey[];
}

export interface ApplyResult {
  orgs: AppliedOrg[];
  /** What this apply changed, one line each; empty when everything already matched. */
  changes: string[];
  dry_run: boolean;
}

/** Validates parsed JSON as an apply file; the error lists every problem as "path: message". */
export function parseApplyFile(json: unknown): ApplyFile {
  const parsed = applyFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new AdminError(`invalid apply file:\n  ${formatIssues(parsed.error.issues).join('\n  ')}`);
}

class DryRun extends Error {
  constructor(readonly result: ApplyResult) {
    super('dry run');
  }
}

/**
 * Makes the database match the file, in one transaction: creates what is
 * missing, updates the fields the file states, and never deletes orgs, users,
 * agents or keys that the file does not mention. With `dryRun` the
 * transaction is rolled back, ids of would-be rows are not real, and no key is shown.
 */
export function applyFile(db: Db, file: ApplyFile, opts: { dryRun?: boolean } = {}): Promise<ApplyResult> {
  return inApplyTransaction(db, opts.dryRun, async (tx, changes) => {
    const orgs: AppliedOrg[] = [];
    for (const [i, org] of file.orgs.entries()) orgs.push(await applyOrg(tx, org, `orgs.${i}`, changes));
    return orgs;
  });
}

export interface OrgApplyResult {
  org: AppliedOrg;
  /** What this apply changed, one line each; empty when everything already matched. */
  changes: string[];
  dry_run: boolean;
}

/**
 * `applyFile` for one org already known by id (POST /api/admin/apply): the same code, the
 * same admin transaction and dry-run rollback. With `actor` the role rules of
 * ./org-roles.ts are checked first. Error paths start with `body`.
 */
export async function applyToOrg(
  db: Db,
  orgId: string,
  doc: OrgDocument,
  opts: { dryRun?: boolean; actor?: Actor } = {},
): Promise<OrgApplyResult> {
  const result = await inApplyTransaction(db, opts.dryRun, async (tx, changes) => {
    const org = await findOrg(tx, orgId);
    if (!org) throw new AdminError(`no org ${orgId}`, 'not_found');
    if (opts.actor) {
      const flows = new Map((await listFlowsOfOrg(tx, orgId)).map((f) => [f.name, f.user.email]));
      checkRoleChanges(await listUsersOfOrg(tx, orgId), doc, opts.actor, flows);
      checkAgentSettings(
        new Map((await listAgentsWithAccess(tx, orgId)).map((a) => [a.name, a.modelSettings])),
        doc.agents,
      );
    }
    return [await applyOrgContents(tx, org, doc, 'body', changes, opts.actor)];
  });
  return { org: result.orgs[0]!, changes: result.changes, dry_run: result.dry_run };
}

/** Runs an apply in one admin transaction; a dry run is rolled back and shows no secret. */
async function inApplyTransaction(
  db: Db,
  dryRun: boolean | undefined,
  fn: (tx: Tx, changes: string[]) => Promise<AppliedOrg[]>,
): Promise<ApplyResult> {
  try {
    return await inAdminTransaction(db, async (tx) => {
      const changes: string[] = [];
      const result: ApplyResult = { orgs: await fn(tx, changes), changes, dry_run: false };
      if (dryRun) throw new DryRun(result);
      return result;
    });
  } catch (err) {
    if (!(err instanceof DryRun)) throw err;
    for (const org of err.result.orgs) {
      for (const key of org.keys) delete key.key;
      for (const hook of org.webhooks) delete hook.secret;
      for (const flow of org.flows) delete flow.secret;
      for (const key of org.widget_keys) delete key.key;
    }
    return { ...err.result, dry_run: true };
  }
}

async function applyOrg(tx: Tx, spec: ApplyOrg, path: string, changes: string[]): Promise<AppliedOrg> {
  const matches = await findOrgsNamed(tx, spec.name);
  if (matches.length > 1) {
    throw new AdminError(
      `${path}.name: ${matches.length} orgs are named "${spec.name}"; the name must identify one org`,
    );
  }
  let org = matches[0];
  if (!org) {
    org = await insertOrg(tx, { id: newId('org'), name: spec.name, creditBalance: spec.credits ?? 0n });
    changes.push(`created org "${org.name}" (${org.id}) with ${org.creditBalance} credits`);
  }
  const max = spec.max_concurrent_runs;
  if (max !== undefined && org.maxConcurrentRuns !== max) {
    const before = org.maxConcurrentRuns;
    org = await setOrgMaxConcurrentRuns(tx, org.id, max);
    changes.push(`max_concurrent_runs of org "${org.name}": ${before ?? 'unlimited'} → ${max ?? 'unlimited'}`);
  }
  return applyOrgContents(tx, org, spec, path, changes);
}

/** Everything but the org row itself: users, agents, keys, webhooks, flows, widget keys. */
async function applyOrgContents(
  tx: Tx,
  org: Org,
  spec: OrgDocument,
  path: string,
  changes: string[],
  actor?: Actor,
): Promise<AppliedOrg> {
  const label = `in org "${org.name}"`;
  const userIds = await applyUsers(tx, org.id, spec, label, changes);
  const resolve = (email: string, at: string): string => {
    const id = userIds.get(email);
    if (!id) throw new AdminError(`${at}: no user with email ${email} in org "${org.name}"`);
    return id;
  };

  const agents: Record<string, string> = {};
  for (const [i, agent] of spec.agents.entries()) {
    agents[agent.name] = await applyAgent(tx, org.id, agent, `${path}.agents.${i}`, label, resolve, changes);
  }

  const keys: AppliedKey[] = [];
  for (const [i, k] of spec.keys.entries()) {
    const userId = resolve(k.user, `${path}.keys.${i}.user`);
    const existing = await findActiveApiKeyNamed(tx, userId, k.name);
    if (existing) {
      keys.push({ user: k.user, name: k.name, id: existing.id, prefix: existing.prefix });
    } else {
      const created = await createApiKey(tx, { userId, name: k.name });
      keys.push({ user: k.user, name: k.name, id: created.id, prefix: created.prefix, key: created.key });
      changes.push(`created key "${k.name}" for ${k.user} ${label} (${created.id})`);
    }
  }

  const webhooks = await applyWebhooks(tx, org, spec, path, changes);
  const flows = await applyFlows(tx, org, spec, path, changes, actor);
  const widgetKeys = await applyWidgetKeys(tx, org.id, spec.widget_keys, `${path}.widget_keys`, label, changes);

  const users = Object.fromEntries(spec.users.map((u) => [u.email, userIds.get(u.email) ?? '']));
  return {
    name: org.name,
    id: org.id,
    credits: org.creditBalance.toString(),
    users,
    agents,
    keys,
    webhooks,
    flows,
    widget_keys: widgetKeys,
  };
}

/** Creates and updates the file's users; returns email → id for every user of the org. */
async function applyUsers(tx: Tx, orgId: string, spec: OrgDocument, label: string, changes: string[]) {
  const existing = new Map((await listUsersOfOrg(tx, orgId)).map((u) => [u.email, u]));
  const ids = new Map([...existing].map(([email, u]) => [email, u.id]));
  for (const u of spec.users) {
    const current = existing.get(u.email);
    if (!current) {
      const created = await insertUser(tx, {
        id: newId('usr'),
        orgId,
        email: u.email,
        name: u.name ?? '',
        role: u.role,
      });
      ids.set(u.email, created.id);
      changes.push(`created user ${u.email} (${u.role}) ${label} (${created.id})`);
      continue;
    }
    const diffs: string[] = [];
    const data: { role?: Role; name?: string } = {};
    if (current.role !== u.role) {
      data.role = u.role;
      diffs.push(`role ${current.role} → ${u.role}`);
    }
    if (u.name !== undefined && current.name !== u.name) {
      data.name = u.name;
      diffs.push(`name ${JSON.stringify(current.name)} → ${JSON.stringify(u.name)}`);
    }
    if (diffs.length) {
      await updateUser(tx, current.id, data);
      changes.push(`updated user ${u.email} ${label}: ${diffs.join(', ')}`);
    }
  }
  return ids;
}

async function applyAgent(
  tx: Tx,
  orgId: string,
  spec: OrgDocument['agents'][number],
  path: string,
  label: string,
  resolve: (email: string, at: string) => string,
  changes: string[],
): Promise<string> {
  const wanted = spec.access?.map((email, j) => ({ email, id: resolve(email, `${path}.access.${j}`) }));
  await checkToolServerSecrets(tx, orgId, spec.settings, path);
  const current = await findAgentByName(tx, orgId, spec.name);
  if (!current) {
    const created = await insertAgent(tx, {
      id: newId('agt'),
      orgId,
      name: spec.name,
      customerFacing: spec.customer_facing ?? false,
      modelSettings: spec.settings ?? {},
      access: (wanted ?? []).map((w) => w.id),
    });
    changes.push(`created agent "${spec.name}" ${label} (${created.id})`);
    for (const w of wanted ?? []) changes.push(`granted agent "${spec.name}" ${label} to ${w.email}`);
    return created.id;
  }

  const diffs: string[] = [];
  const data: { customerFacing?: boolean; modelSettings?: object } = {};
  if (spec.customer_facing !== undefined && spec.customer_facing !== current.customerFacing) {
    data.customerFacing = spec.customer_facing;
    diffs.push(`customer_facing ${current.customerFacing} → ${spec.customer_facing}`);
  }
  if (spec.settings !== undefined && stableJson(spec.settings) !== stableJson(current.modelSettings)) {
    data.modelSettings = spec.settings;
    diffs.push('settings');
  }
  if (diffs.length) {
    await updateAgent(tx, current.id, data);
    changes.push(`updated agent "${spec.name}" ${label}: ${diffs.join(', ')}`);
  }

  if (wanted) {
    const have = new Set(current.access.map((a) => a.userId));
    const want = new Set(wanted.map((w) => w.id));
    for (const w of wanted.filter((w) => !have.has(w.id))) {
      await insertAgentAccess(tx, current.id, w.id);
      changes.push(`granted agent "${spec.name}" ${label} to ${w.email}`);
    }
    const extra = [...have].filter((id) => !want.has(id));
    if (extra.length) {
      await deleteAgentAccess(tx, current.id, extra);
      for (const email of await emailsOfUsers(tx, extra))
        changes.push(`revoked agent "${spec.name}" ${label} from ${email}`);
    }
  }
  return current.id;
}
