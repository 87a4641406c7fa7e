import type { Role, User } from '../db/users.ts';
import { isOrgAdmin } from '../shared/roles.ts';
import type { OrgDocument } from './apply-file.ts';
import { AdminError } from './errors.ts';
import { stableJson } from './stable-json.ts';

/** A signed-in user applying a document to their own org (POST /api/admin/apply). */
export interface Actor {
  userId: string;
  role: Role | string;
}

/**
 * The role rules of applying to one's own org through the api, checked before anything is written:
 * - only owners and admins may apply at all;
 * - only an owner may give the owner role, or change an owner's role or name (an admin gets 403);
 * - the org keeps at least one owner (400);
 * - only an owner may create an API key for an owner, or a flow whose runs act as an owner (a key
 *   or a flow acts as its user: an admin holding either would act as an owner).
 * Credits are not part of the document, so they never change this way. The `admin apply`
 * CLI is the operator's tool and is not bound by these rules.
 */
export function checkRoleChanges(
  current: Pick<User, 'email' | 'role' | 'name'>[],
  doc: Pick<OrgDocument, 'users' | 'keys' | 'flows'>,
  actor: Actor,
  /** The org's flows now: flow name → the email of the user its runs act as. */
  currentFlows: ReadonlyMap<string, string> = new Map(),
): void {
  const wanted = doc.users;
  if (!isOrgAdmin(actor.role))
    throw new AdminError('Only organization owners and admins may administer the organization', 'forbidden');
  const byEmail = new Map(current.map((u) => [u.email, u]));
  const roles = new Map(current.map((u) => [u.email, u.role as string]));
  for (const u of wanted) {
    const existing = byEmail.get(u.email);
    roles.set(u.email, u.role);
    if (actor.role === 'owner') continue;
    if (u.role === 'owner' && existing?.role !== 'owner') {
      throw new AdminError(`users: only an owner may give the owner role (${u.email})`, 'forbidden');
    }
    if (existing?.role === 'owner' && (u.role !== 'owner' || (u.name !== undefined && u.name !== existing.name))) {
      throw new AdminError(`users: only an owner may change an owner's role or name (${u.email})`, 'forbidden');
    }
  }
  for (const key of doc.keys) {
    const role = roles.get(key.user);
    if (role && !mayActAs(actor.role, role))
      throw new AdminError(`keys: only an owner may create a key for an owner (${key.user})`, 'forbidden');
  }
  // A flow stated as it is (a document read back) is no new grant; a new one, or a new user, is.
  for (const flow of doc.flows.filter((f) => currentFlows.get(f.name) !== f.user)) {
    const role = roles.get(flow.user);
    if (role && !mayActAs(actor.role, role))
      throw new AdminError(
        `flows: only an owner may make a flow whose runs act as an owner (${flow.name}: ${flow.user})`,
        'forbidden',
      );
  }
  const hadOwner = current.some((u) => u.role === 'owner');
  if (hadOwner && ![...roles.values()].includes('owner'))
    throw new AdminError('users: the organization must keep at least one owner');
}

/** Whether a user of role `actorRole` may create what acts as a user of role `userRole` (an API key, a flow's runs). */
export function mayActAs(actorRole: Role | string, userRole: Role | string): boolean {
  return userRole !== 'owner' || actorRole === 'owner';
}

/**
 * Agent settings only the service's operator sets (the `admin` CLI and apply files), never an org
 * through the api: where the worker sends an agent's model requests (`base_url`), which of the
 * worker's environment variables it sends along as the key (`api_key_env`), whether sandbox
 * commands reach the internet (`sandbox.network`), and whether they run without an owner's or
 * admin's approval (`sandbox.run_command_approval`). An org admin choosing them could send the
 * service's secrets to their own server, or let any member (or a prompt-injected model) run
 * commands in the shared workspace that nobody approved.
 */
export const OPERATOR_AGENT_SETTINGS = [
  'base_url',
  'api_key_env',
  'sandbox.network',
  'sandbox.run_command_approval',
] as const;

/** 403 when the document would set, change or clear an operator-only setting of an agent. */
export function checkAgentSettings(current: ReadonlyMap<string, unknown>, wanted: OrgDocument['agents']): void {
  for (const agent of wanted) {
    if (agent.settings === undefined) continue; // settings left as they are
    const before = current.get(agent.name) ?? {};
    for (const field of OPERATOR_AGENT_SETTINGS) {
      if (stableJson(settingAt(agent.settings, field)) !== stableJson(settingAt(before, field))) {
        throw new AdminError(
          `agents: ${agent.name}: ${field} is set by the service's operator (admin CLI), not through the api`,
          'forbidden',
        );
      }
    }
  }
}

function settingAt(settings: unknown, dotted: string): unknown {
  let value: unknown = settings;
  for (const key of dotted.split('.'))
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value ?? null;
}
