/** The chat screen: agent picker, task list, conversation with live streaming, message box, run panel. */
import { useMemo, useState } from 'preact/hooks';
import { isAdmin, saveAgentId, savedAgentId, type Session } from '../session.ts';
import { Conversation } from './conversation.tsx';
import { RunPanel } from './run-panel.tsx';
import { TaskList } from './task-list.tsx';
import { useRun } from './use-run.ts';

export function ChatView({ session }: { session: Session }) {
  const [agentId, setAgentId] = useState(savedAgentId());
  const [draftAgent, setDraftAgent] = useState(agentId);
  const client = useMemo(() => (agentId ? session.forAgent(agentId) : undefined), [agentId, session]);
  return (
    <div class="chat">
      <form
        class="agent-picker"
        onSubmit={(e) => {
          e.preventDefault();
          saveAgentId(draftAgent.trim());
          setAgentId(draftAgent.trim());
        }}
      >
        <label>
          Agent id
          <input value={draftAgent} placeholder="agt_…" required onInput={(e) => setDraftAgent(e.currentTarget.value)} />
        </label>
        <button type="submit">Use agent</button>
      </form>
      {client ? <AgentChat key={agentId} session={session} client={client} /> : <p>Enter the id of an agent you may use.</p>}
    </div>
  );
}

function AgentChat({ session, client }: { session: Session; client: NonNullable<ReturnType<Session['forAgent']>> }) {
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
      <TaskList client={client} selected={run.taskId} version={version} onSelect={(id) => void run.open(id)} />
      <main class="chat-main">
        <Conversation items={run.view.items} admin={isAdmin(session.identity)} guest={session.identity.role === 'guest'} onAnswer={run.answer} />
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
          <button type="submit" disabled={busy}>Send</button>
        </form>
      </main>
      <RunPanel view={run.view} client={client} taskId={run.taskId} />
    </div>
  );
}
