/** The chat screen: agent picker (the agents the caller may use), task list, conversation with live streaming, message box, run panel. */
import type { UsableAgent } from '@agent-run/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorText, isAdmin, saveAgentId, savedAgentId, type Session } from '../session.ts';
import { Conversation } from './conversation.tsx';
import { RunPanel } from './run-panel.tsx';
import { TaskList } from './task-list.tsx';
import { useRun } from './use-run.ts';

export function ChatView({ session }: { session: Session }) {
  const [agents, setAgents] = useState<UsableAgent[]>();
  const [error, setError] = useState<string>();
  const [picked, setPicked] = useState(savedAgentId());
  useEffect(() => {
    session.client.agents.list().then(
      (list) => setAgents(list.agents),
      (err) => setError(errorText(err)),
    );
  }, [session]);
  // The last choice of this tab when it is still usable, else the first agent.
  const agentId = agents?.some((a) => a.id === picked) ? picked : agents?.[0]?.id;
  const client = useMemo(() => (agentId ? session.forAgent(agentId) : undefined), [agentId, session]);
  return (
    <div class="chat">
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {agents && agents.length > 0 && (
        <div class="agent-picker">
          <label>
            Agent
            <select
              aria-label="Agent"
              value={agentId}
              onChange={(e) => {
                saveAgentId(e.currentTarget.value);
                setPicked(e.currentTarget.value);
              }}
            >
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                  {a.customer_facing ? ' (customer-facing)' : ''}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {agents?.length === 0 && (
        <p>No agent is available to you yet: an owner or admin grants access under Administration.</p>
      )}
      {!agents && !error && <p role="status">Loading agents…</p>}
      {client && agentId && <AgentChat key={agentId} session={session} agentId={agentId} client={client} />}
    </div>
  );
}

interface AgentChatProps {
  session: Session;
  agentId: string;
  client: NonNullable<ReturnType<Session['forAgent']>>;
}

function AgentChat({ session, agentId, client }: AgentChatProps) {
  const [version, setVersion] = useState(0);
  const run = useRun(client, () => setVersion((v) => v + 1));
  const [message, setMessage] = useState('');
  const [mode, setMode] = useState<'auto' | 'fast' | 'deep'>('auto');
  const busy = run.view.phase === 'running' || run.view.phase === 'waiting';
  const submit = (e: Event) => {
    e.preventDefault();
    const text = message.trim();
    if (!text || busy) return;
    setMessage('');
    setTimeout(() => setVersion((v) => v + 1), 500);
    void run.send(text, mode);
  };
  return (
    <div class="chat-body">
      <TaskList
        client={client}
        agentId={agentId}
        selected={run.taskId}
        version={version}
        onSelect={(id) => void run.open(id)}
      />
      <main class="chat-main">
        <Conversation
          items={run.view.items}
          admin={isAdmin(session.identity)}
          guest={session.identity.role === 'guest'}
          onAnswer={run.answer}
        />
        <form class="composer" onSubmit={submit}>
          <label class="grow">
            Message
            <textarea
              rows={3}
              value={message}
              onInput={(e) => setMessage(e.currentTarget.value)}
              onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && submit(e)}
            />
          </label>
          <label>
            Mode
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value as typeof mode)}>
              <option value="auto">auto</option>
              <option value="fast">fast</option>
              <option value="deep">deep</option>
            </select>
          </label>
          <button type="submit" disabled={busy}>
            Send
          </button>
        </form>
      </main>
      <RunPanel view={run.view} client={client} taskId={run.taskId} runs={run.runs} />
    </div>
  );
}
