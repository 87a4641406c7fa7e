import { describe, expect, it } from 'vitest';
import { AdminError } from '../../src/admin/errors.ts';
import { checkAgentSettings, checkRoleChanges } from '../../src/admin/org-roles.ts';

/** The role rules of POST /api/admin/apply, on their own (the e2e test drives them over HTTP). */
const current = [
  { email: 'own@x.test', role: 'owner' as const, name: 'Own' },
  { email: 'adm@x.test', role: 'admin' as const, name: '' },
  { email: 'mem@x.test', role: 'member' as const, name: '' },
];
type Wanted = Parameters<typeof checkRoleChanges>[1];
/** A document that states these users (and, when given, these API keys). */
const doc = (
  users: { email: string; role: string; name?: string }[],
  keys: Wanted['keys'] = [],
  flows: Wanted['flows'] = [],
): Wanted => ({ users: users as Wanted['users'], keys, flows });
const asAdmin = { userId: 'usr_a', role: 'admin' };
const asOwner = { userId: 'usr_o', role: 'owner' };

function refusal(fn: () => void): { kind: string; message: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AdminError);
    return { kind: (err as AdminError).kind, message: (err as AdminError).message };
  }
}

describe('checkRoleChanges', () => {
  it('lets an admin change members and leave owners as they are', () => {
    expect(
      refusal(() =>
        checkRoleChanges(
          current,
          doc([
            { email: 'mem@x.test', role: 'guest' },
            { email: 'own@x.test', role: 'owner', name: 'Own' },
          ]),
          asAdmin,
        ),
      ),
    ).toBeUndefined();
    expect(
      refusal(() => checkRoleChanges(current, doc([{ email: 'new@x.test', role: 'admin' }]), asAdmin)),
    ).toBeUndefined();
  });

  it('refuses an admin giving the owner role or changing an owner (forbidden)', () => {
    for (const users of [
      [{ email: 'mem@x.test', role: 'owner' as const }],
      [{ email: 'new@x.test', role: 'owner' as const }],
      [{ email: 'own@x.test', role: 'admin' as const }],
      [{ email: 'own@x.test', role: 'owner' as const, name: 'Renamed' }],
    ]) {
      expect(refusal(() => checkRoleChanges(current, doc(users), asAdmin))?.kind).toBe('forbidden');
      // An owner may (demoting the only owner is refused by the next rule, not this one).
      expect(refusal(() => checkRoleChanges(current, doc(users), asOwner))?.kind).not.toBe('forbidden');
    }
  });

  it('keeps at least one owner (invalid), also for an owner', () => {
    expect(refusal(() => checkRoleChanges(current, doc([{ email: 'own@x.test', role: 'member' }]), asOwner))).toEqual({
      kind: 'invalid',
      message: 'users: the organization must keep at least one owner',
    });
    expect(
      refusal(() =>
        checkRoleChanges(
          current,
          doc([
            { email: 'own@x.test', role: 'member' },
            { email: 'adm@x.test', role: 'owner' },
          ]),
          asOwner,
        ),
      ),
    ).toBeUndefined();
  });

  it('lets only an owner create a key for an owner (a key acts as its user)', () => {
    expect(refusal(() => checkRoleChanges(current, doc([], [{ user: 'own@x.test', name: 'ci' }]), asAdmin))).toEqual({
      kind: 'forbidden',
      message: 'keys: only an owner may create a key for an owner (own@x.test)',
    });
    // Also an admin naming a member as owner and a key for them in one document (refused by the owner rule first).
    expect(
      refusal(() =>
        checkRoleChanges(
          current,
          doc([{ email: 'mem@x.test', role: 'owner' }], [{ user: 'mem@x.test', name: 'ci' }]),
          asAdmin,
        ),
      )?.kind,
    ).toBe('forbidden');
    expect(
      refusal(() =>
        checkRoleChanges(
          current,
          doc(
            [],
            [
              { user: 'mem@x.test', name: 'ci' },
              { user: 'adm@x.test', name: 'ci' },
            ],
          ),
          asAdmin,
        ),
      ),
    ).toBeUndefined();
    expect(
      refusal(() => checkRoleChanges(current, doc([], [{ user: 'own@x.test', name: 'ci' }]), asOwner)),
    ).toBeUndefined();
  });

  it('lets only an owner make a flow whose runs act as an owner', () => {
    const flow = (user: string) => [{ name: 'nightly', kind: 'webhook' as const, agent: 'agent', user, message: 'Go' }];
    expect(refusal(() => checkRoleChanges(current, doc([], [], flow('own@x.test')), asAdmin))?.kind).toBe('forbidden');
    expect(refusal(() => checkRoleChanges(current, doc([], [], flow('mem@x.test')), asAdmin))).toBeUndefined();
    expect(refusal(() => checkRoleChanges(current, doc([], [], flow('own@x.test')), asOwner))).toBeUndefined();
    // An owner's flow stated as it is (a document read back) is fine; moving it to the owner is not.
    expect(
      refusal(() =>
        checkRoleChanges(current, doc([], [], flow('own@x.test')), asAdmin, new Map([['nightly', 'own@x.test']])),
      ),
    ).toBeUndefined();
    expect(
      refusal(() =>
        checkRoleChanges(current, doc([], [], flow('own@x.test')), asAdmin, new Map([['nightly', 'mem@x.test']])),
      )?.kind,
    ).toBe('forbidden');
  });

  it('refuses members and guests outright', () => {
    for (const role of ['member', 'guest'])
      expect(refusal(() => checkRoleChanges(current, doc([]), { userId: 'usr_m', role }))?.kind).toBe('forbidden');
  });
});

describe('checkAgentSettings', () => {
  const stored = new Map<string, unknown>([
    ['bot', { base_url: 'https://models.internal/v1', api_key_env: 'BOT_KEY', model: 'm' }],
  ]);
  it('lets an org change its model settings and keep the operator-only ones as they are', () => {
    expect(
      refusal(() =>
        checkAgentSettings(stored, [
          {
            name: 'bot',
            settings: {
              base_url: 'https://models.internal/v1',
              api_key_env: 'BOT_KEY',
              model: 'other',
              temperature: 0.2,
            },
          },
        ]),
      ),
    ).toBeUndefined();
    expect(
      refusal(() =>
        checkAgentSettings(stored, [{ name: 'bot' }, { name: 'fresh', settings: { model: 'm', sandbox: {} } }]),
      ),
    ).toBeUndefined();
  });

  it('refuses setting, changing or clearing base_url, api_key_env, sandbox.network or sandbox.run_command_approval', () => {
    for (const settings of [
      { base_url: 'https://elsewhere/v1', api_key_env: 'BOT_KEY' },
      { base_url: 'https://models.internal/v1', api_key_env: 'JWT_SECRET' },
      { model: 'm' },
    ]) {
      expect(refusal(() => checkAgentSettings(stored, [{ name: 'bot', settings }]))?.kind).toBe('forbidden');
    }
    expect(
      refusal(() => checkAgentSettings(stored, [{ name: 'fresh', settings: { sandbox: { network: true } } }]))?.kind,
    ).toBe('forbidden');
    // Turning the approval gate of run_command off lets any member run unapproved commands in the shared workspace.
    expect(
      refusal(() =>
        checkAgentSettings(stored, [{ name: 'fresh', settings: { sandbox: { run_command_approval: false } } }]),
      )?.kind,
    ).toBe('forbidden');
    expect(
      refusal(() =>
        checkAgentSettings(new Map([['bot', { sandbox: { run_command_approval: false } }]]), [
          { name: 'bot', settings: { sandbox: {} } },
        ]),
      )?.kind,
    ).toBe('forbidden');
  });
});
