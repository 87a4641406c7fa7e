/** Creating or editing one flow: kind, agent, user, message template, and the kind's settings (src/shared/flows.ts). */
import type { FlowSpec } from '@agent-run/client';
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';

const KINDS = ['cron', 'webhook', 'repository', 'email', 'messaging'] as const;
type Kind = (typeof KINDS)[number];

interface FormState {
  name: string;
  kind: Kind;
  agent: string;
  user: string;
  message: string;
  taskKey: string;
  enabled: boolean;
  /** Outside senders (inbound kinds) get the user's tools instead of a guest's. */
  trustSenders: boolean;
  schedule: string;
  timezone: string;
  events: string;
  botTokenSecret: string;
  signingSecret: string;
}

function fromSpec(f: FlowSpec | undefined, agent: string, user: string): FormState {
  const schedule = f?.cron?.schedule;
  return {
    name: f?.name ?? '',
    kind: f?.kind ?? 'cron',
    agent: f?.agent ?? agent,
    user: f?.user ?? user,
    message: f?.message ?? '',
    taskKey: f?.task_key ?? '',
    enabled: f?.enabled ?? true,
    trustSenders: f?.sender_access === 'user',
    schedule: typeof schedule === 'string' ? schedule : schedule ? String(schedule.every_seconds) : '',
    timezone: f?.cron?.timezone ?? 'UTC',
    events: f?.repository?.events.join(', ') ?? '',
    botTokenSecret: f?.messaging?.bot_token_secret ?? '',
    signingSecret: '',
  };
}

function toSpec(base: FlowSpec | undefined, s: FormState): FlowSpec {
  const spec: FlowSpec = {
    name: s.name.trim(),
    kind: s.kind,
    agent: s.agent,
    user: s.user,
    message: s.message,
    enabled: s.enabled,
  };
  if (s.taskKey.trim()) spec.task_key = s.taskKey.trim();
  if (s.kind !== 'cron' && s.trustSenders) spec.sender_access = 'user';
  if (s.kind === 'cron') {
    // A number is an interval in seconds; anything else a cron expression.
    const schedule = /^\d+$/.test(s.schedule.trim()) ? { every_seconds: Number(s.schedule.trim()) } : s.schedule.trim();
    spec.cron = { ...base?.cron, schedule, timezone: s.timezone.trim() || 'UTC' };
  }
  if (s.kind === 'repository') spec.repository = { events: s.events.split(/[\s,]+/).filter(Boolean) };
  if (s.kind === 'messaging') spec.messaging = { ...base?.messaging, bot_token_secret: s.botTokenSecret.trim() };
  if (s.kind === 'messaging' && s.signingSecret) spec.secret = s.signingSecret;
  return spec;
}

export function FlowForm({ org, session, flow, onDone }: ScreenProps & { flow?: FlowSpec; onDone: () => void }) {
  const doc = org.config.document;
  // A new flow runs as the signed-in user; only an owner may make one that acts as an owner (the api enforces it too).
  const me = org.config.users.find((u) => u.id === session.identity.user_id)?.email ?? doc.users[0]?.email ?? '';
  const isOwner = session.identity.role === 'owner';
  const [s, setS] = useState(() => fromSpec(flow, doc.agents[0]?.name ?? '', me));
  const update = (change: Partial<FormState>) => setS((old) => ({ ...old, ...change }));
  const agents = s.kind === 'messaging' ? doc.agents.filter((a) => a.customer_facing) : doc.agents;
  const submit = (dryRun: boolean) =>
    void org.apply({ flows: [toSpec(flow, s)] }, dryRun).then((ok) => ok && !dryRun && onDone());
  return (
    <form
      class="form flow-form"
      aria-label={flow ? `Edit flow ${flow.name}` : 'New flow'}
      onSubmit={(e) => {
        e.preventDefault();
        submit(false);
      }}
    >
      <h4>{flow ? `Edit flow "${flow.name}"` : 'New flow'}</h4>
      <div class="form inline">
        <label>
          Flow name
          <input
            required
            value={s.name}
            readOnly={flow !== undefined}
            onInput={(e) => update({ name: e.currentTarget.value })}
          />
        </label>
        <label>
          Kind
          <select
            value={s.kind}
            disabled={flow !== undefined}
            onChange={(e) => update({ kind: e.currentTarget.value as Kind })}
          >
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select
            aria-label="Agent"
            required
            value={s.agent}
            onChange={(e) => update({ agent: e.currentTarget.value })}
          >
            {agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Runs as
          <select value={s.user} onChange={(e) => update({ user: e.currentTarget.value })}>
            {doc.users.map((u) => (
              <option key={u.email} value={u.email} disabled={u.role === 'owner' && !isOwner && u.email !== flow?.user}>
                {u.email}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label>
        Message template
        <textarea
          rows={3}
          required
          value={s.message}
          placeholder="New issue: {{issue.title}}"
          onInput={(e) => update({ message: e.currentTarget.value })}
        />
      </label>
      <label>
        Task key template (optional: events with the same key continue one task)
        <input value={s.taskKey} onInput={(e) => update({ taskKey: e.currentTarget.value })} />
      </label>
      {s.kind !== 'cron' && (
        <label class="check">
          <input
            type="checkbox"
            checked={s.trustSenders}
            onChange={(e) => update({ trustSenders: e.currentTarget.checked })}
          />
          Senders get the user's tools (memory, workspace); otherwise a guest's
        </label>
      )}
      {s.kind === 'cron' && (
        <div class="form inline">
          <label>
            Schedule (cron expression, or seconds)
            <input
              required
              value={s.schedule}
              placeholder="0 9 * * 1-5"
              onInput={(e) => update({ schedule: e.currentTarget.value })}
            />
          </label>
          <label>
            Timezone
            <input required value={s.timezone} onInput={(e) => update({ timezone: e.currentTarget.value })} />
          </label>
        </div>
      )}
      {s.kind === 'repository' && (
        <label>
          Repository events
          <input
            required
            value={s.events}
            placeholder="issues.opened, pull_request.opened"
            onInput={(e) => update({ events: e.currentTarget.value })}
          />
        </label>
      )}
      {s.kind === 'messaging' && (
        <div class="form inline">
          <label>
            Bot token secret (the org secret holding it)
            <input
              required
              value={s.botTokenSecret}
              placeholder="SLACK_BOT_TOKEN"
              onInput={(e) => update({ botTokenSecret: e.currentTarget.value })}
            />
          </label>
          <label>
            Slack signing secret{flow ? ' (leave empty to keep)' : ''}
            <input
              type="password"
              required={!flow}
              value={s.signingSecret}
              onInput={(e) => update({ signingSecret: e.currentTarget.value })}
            />
          </label>
        </div>
      )}
      {(s.kind === 'webhook' || s.kind === 'email' || s.kind === 'repository') && !flow && (
        <p class="note">A secret is generated and shown once when the flow is created.</p>
      )}
      <label class="check">
        <input type="checkbox" checked={s.enabled} onChange={(e) => update({ enabled: e.currentTarget.checked })} />
        Enabled
      </label>
      <div class="buttons">
        <button type="submit" disabled={org.busy}>
          Save flow
        </button>
        <button type="button" class="secondary" disabled={org.busy} onClick={() => submit(true)}>
          Preview
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
