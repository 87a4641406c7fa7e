/** Creating or editing one agent: model settings, tools, tool servers, approvals, customer-facing, access. Saved (or previewed) as a partial apply. */
import type { OrgDocument, OrgSecret } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';
import { Checklist } from './checklist.tsx';
import { fromServer, toServer, ToolServers, type ServerRow } from './tool-servers.tsx';

type AgentSpec = OrgDocument['agents'][number];
type Settings = NonNullable<AgentSpec['settings']>;
const PROVIDERS = ['offline', 'openai-compatible', 'openai', 'anthropic'] as const;

/** The agent spec the form describes: the stored settings it does not show (base_url, sandbox…) are kept. */
function toSpec(base: AgentSpec | undefined, f: FormState): AgentSpec {
  const settings: Settings = { ...base?.settings };
  const set = <K extends keyof Settings>(key: K, value: Settings[K] | undefined) => {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && key !== 'tools'))
      delete settings[key];
    else settings[key] = value;
  };
  set('provider', (f.provider || undefined) as Settings['provider']);
  set('model', f.model.trim() || undefined);
  set('system_prompt', f.systemPrompt || undefined);
  set('temperature', f.temperature === '' ? undefined : Number(f.temperature));
  set('max_steps', f.maxSteps === '' ? undefined : Number(f.maxSteps));
  set('tools', f.allTools ? undefined : [...f.tools]);
  set('approval_required_tools', [...f.approval]);
  set('sensitive_tools', [...f.sensitive]);
  set('require_plan_approval', f.planApproval || undefined);
  set('api_key', f.apiKeySecret ? { secret: f.apiKeySecret } : undefined);
  set('tool_servers', f.servers.map(toServer));
  return { name: f.name.trim(), customer_facing: f.customerFacing, settings, access: [...f.access] };
}

interface FormState {
  name: string;
  customerFacing: boolean;
  provider: string;
  model: string;
  systemPrompt: string;
  temperature: string;
  maxSteps: string;
  allTools: boolean;
  tools: string[];
  approval: string[];
  sensitive: string[];
  planApproval: boolean;
  access: string[];
  servers: ServerRow[];
  /** The org secret the model provider's key comes from; empty: none (the operator's key). */
  apiKeySecret: string;
}

function fromSpec(a: AgentSpec | undefined): FormState {
  const s = a?.settings ?? {};
  return {
    name: a?.name ?? '',
    customerFacing: a?.customer_facing ?? false,
    provider: s.provider ?? '',
    model: s.model ?? '',
    systemPrompt: s.system_prompt ?? '',
    temperature: s.temperature?.toString() ?? '',
    maxSteps: s.max_steps?.toString() ?? '',
    allTools: s.tools === undefined,
    tools: s.tools ?? [],
    approval: s.approval_required_tools ?? [],
    sensitive: s.sensitive_tools ?? [],
    planApproval: s.require_plan_approval ?? false,
    access: a?.access ?? [],
    servers: (s.tool_servers ?? []).map(fromServer),
    apiKeySecret: s.api_key?.secret ?? '',
  };
}

export function AgentForm({ org, session, agent, onDone }: ScreenProps & { agent?: AgentSpec; onDone: () => void }) {
  const [f, setF] = useState(() => fromSpec(agent));
  // Names only: a secret's value never comes back from the api.
  const [secrets, setSecrets] = useState<OrgSecret[]>([]);
  const readSecrets = () =>
    session.client.admin.listSecrets().then(
      (list) => (setSecrets(list.secrets), list.secrets),
      () => (setSecrets([]), []),
    );
  useEffect(() => void readSecrets(), [session]);
  const secretNames = secrets.map((s) => s.name);
  const update = (change: Partial<FormState>) => setF((old) => ({ ...old, ...change }));
  const tools = org.config.tools;
  const toolNames = tools.map((t) => t.name);
  const submit = (dryRun: boolean) =>
    void org.apply({ agents: [toSpec(agent, f)] }, dryRun).then((ok) => ok && !dryRun && onDone());
  return (
    <form
      class="form agent-form"
      aria-label={agent ? `Edit agent ${agent.name}` : 'New agent'}
      onSubmit={(e) => {
        e.preventDefault();
        submit(false);
      }}
    >
      <h4>{agent ? `Edit agent "${agent.name}"` : 'New agent'}</h4>
      <label>
        Agent name
        <input
          required
          value={f.name}
          readOnly={agent !== undefined}
          onInput={(e) => update({ name: e.currentTarget.value })}
        />
      </label>
      <div class="form inline">
        <label>
          Provider
          <select value={f.provider} onChange={(e) => update({ provider: e.currentTarget.value })}>
            <option value="">service default</option>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Model
          <input
            value={f.model}
            placeholder="service default"
            onInput={(e) => update({ model: e.currentTarget.value })}
          />
        </label>
        <label>
          Temperature
          <input
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={f.temperature}
            onInput={(e) => update({ temperature: e.currentTarget.value })}
          />
        </label>
        <label>
          Max steps
          <input
            type="number"
            min={1}
            max={100}
            step={1}
            value={f.maxSteps}
            onInput={(e) => update({ maxSteps: e.currentTarget.value })}
          />
        </label>
      </div>
      <label>
        Model key (org secret)
        <select value={f.apiKeySecret} onChange={(e) => update({ apiKeySecret: e.currentTarget.value })}>
          <option value="">the service's key (no org secret)</option>
          {secretNames.map((n) => (
            <option key={n} value={n}>
              org secret {n}
            </option>
          ))}
        </select>
      </label>
      <label>
        System prompt
        <textarea rows={4} value={f.systemPrompt} onInput={(e) => update({ systemPrompt: e.currentTarget.value })} />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={f.allTools}
          onChange={(e) =>
            update({ allTools: e.currentTarget.checked, tools: e.currentTarget.checked ? [] : toolNames })
          }
        />
        All catalog tools (including tools added later)
      </label>
      {!f.allTools && (
        <Checklist
          legend="Tools the agent may call"
          prefix="Tool"
          items={toolNames}
          checked={f.tools}
          onChange={(tools) => update({ tools })}
        />
      )}
      <Checklist
        legend="Tools that wait for approval"
        prefix="Approval for"
        items={toolNames}
        checked={f.approval}
        onChange={(approval) => update({ approval })}
      />
      <Checklist
        legend="Sensitive tools (only owners and admins approve)"
        prefix="Sensitive"
        items={toolNames}
        checked={f.sensitive}
        fixed={tools.filter((t) => t.sensitive).map((t) => t.name)}
        onChange={(sensitive) => update({ sensitive })}
      />
      <ToolServers
        session={session}
        servers={f.servers}
        secrets={secrets}
        readSecrets={readSecrets}
        onChange={(servers) => update({ servers })}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={f.planApproval}
          onChange={(e) => update({ planApproval: e.currentTarget.checked })}
        />
        Deep-mode plans wait for approval
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={f.customerFacing}
          onChange={(e) => update({ customerFacing: e.currentTarget.checked })}
        />
        Customer-facing (widget and messaging channels)
      </label>
      <Checklist
        legend="Access (owners and admins use every agent)"
        prefix="Access for"
        items={org.config.document.users.map((u) => u.email)}
        checked={f.access}
        onChange={(access) => update({ access })}
      />
      <div class="buttons">
        <button type="submit" disabled={org.busy}>
          Save agent
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
