/**
 * The org's approvals inbox across agents, as a queue: each approval says what the agent wants to do (the
 * command, the file and its content, the tool and its arguments), which agent, who started the run, with
 * its trace and its conversation a click away; approve or reject with the options the caller's role allows;
 * j/k move through the queue, a approves, r rejects, c opens the conversation, t the trace.
 */
import type { Approval, ApprovalStatus, Message } from '@agent-run/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ActionView } from './action-view.tsx';
import { approvalAction, planSteps } from './approval-action.ts';
import { runStatusLabel } from './run-status.ts';
import { errorText, isAdmin, type Session } from './session.ts';

/** How often the queue is read again while the page is open. */
const REFRESH_MS = 5000;

interface CardActions {
  decide(decision: 'approve' | 'reject'): Promise<void>;
  toggleConversation(): void;
}

export function ApprovalsView({ session }: { session: Session }) {
  const [status, setStatus] = useState<ApprovalStatus>('pending');
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState(0);
  const cards = useRef(new Map<string, CardActions>());
  useEffect(() => {
    const abort = new AbortController();
    const read = () =>
      session.client.approvals.list({ status, signal: abort.signal }).then(
        (list) => (setApprovals(list.approvals), setLoaded(true), setError(undefined)),
        (err) => abort.signal.aborted || setError(errorText(err)),
      );
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => (clearInterval(timer), abort.abort());
  }, [session, status, version]);

  const at = Math.min(selected, Math.max(approvals.length - 1, 0));
  const current = approvals[at];
  useEffect(() => {
    const keys = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey || target?.closest('input, textarea, select, [contenteditable]')) return;
      const move = (by: number) => setSelected(Math.max(0, Math.min(approvals.length - 1, at + by)));
      const actions = current && cards.current.get(current.id);
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'a' && actions) void actions.decide('approve');
      else if (e.key === 'r' && actions) void actions.decide('reject');
      else if (e.key === 'c' && actions) actions.toggleConversation();
      else if (e.key === 't' && current) location.hash = `#/inspect/${encodeURIComponent(current.run_id)}`;
      else return;
      e.preventDefault();
    };
    addEventListener('keydown', keys);
    return () => removeEventListener('keydown', keys);
  }, [approvals, at, current]);
  // The selected card stays in view as the queue is walked.
  useEffect(() => {
    if (current)
      document.querySelector(`[data-approval-id="${CSS.escape(current.id)}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [current?.id]);

  return (
    <main class="approvals">
      <h2>Approvals</h2>
      <label>
        Show
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value as ApprovalStatus)}>
          {['pending', 'approved', 'rejected', 'cancelled', 'all'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <p class="meta shortcuts" data-testid="shortcuts">
        Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>a</kbd> approve · <kbd>r</kbd> reject (with the feedback
        typed) · <kbd>c</kbd> conversation · <kbd>t</kbd> trace
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {loaded && approvals.length === 0 && !error && <p>No approvals.</p>}
      <ul class="cards">
        {approvals.map((a, i) => (
          <ApprovalCard
            key={a.id}
            approval={a}
            session={session}
            selected={i === at}
            onSelect={() => setSelected(i)}
            register={(actions) => (actions ? cards.current.set(a.id, actions) : cards.current.delete(a.id))}
            onDecided={() => setVersion((v) => v + 1)}
          />
        ))}
      </ul>
    </main>
  );
}

interface CardProps {
  approval: Approval;
  session: Session;
  selected: boolean;
  onSelect(): void;
  register(actions: CardActions | undefined): void;
  onDecided(): void;
}

function ApprovalCard({ approval: a, session, selected, onSelect, register, onDecided }: CardProps) {
  const [feedback, setFeedback] = useState('');
  const [runScope, setRunScope] = useState(false);
  const [always, setAlways] = useState(false);
  const [result, setResult] = useState<string>();
  const [conversation, setConversation] = useState(false);
  const busy = useRef(false);
  const mayDecide = !a.sensitive || isAdmin(session.identity);
  const open = a.status === 'pending' && mayDecide;
  const decide = async (decision: 'approve' | 'reject') => {
    if (!open || busy.current) return;
    busy.current = true;
    const options =
      decision === 'approve' && a.kind === 'action'
        ? { ...(runScope ? { approve_run_scope: true } : {}), ...(always ? { approve_always: true } : {}) }
        : {};
    try {
      await session.client.approvals.respond(a.id, { decision, ...options, ...(feedback ? { feedback } : {}) });
      setResult(decision === 'approve' ? 'Approved' : 'Rejected');
      onDecided();
    } catch (err) {
      setResult(errorText(err));
    } finally {
      busy.current = false;
    }
  };
  useEffect(() => {
    register({ decide, toggleConversation: () => setConversation((c) => !c) });
    return () => register(undefined);
  });

  const action = a.kind === 'action' ? approvalAction(a.tool_name, a.details) : undefined;
  const steps = a.kind === 'plan' ? planSteps(a.details) : [];
  const who = a.started_by.visitor ? 'a widget visitor' : a.started_by.name || a.started_by.email;
  return (
    <li
      class={`card approval${selected ? ' selected' : ''}`}
      data-approval-id={a.id}
      aria-current={selected ? 'true' : undefined}
      aria-label={`Approval ${a.tool_name ?? a.kind}`}
      onClick={onSelect}
    >
      <p class="meta">
        {action ? (
          <>
            Tool <code>{action.tool}</code>
          </>
        ) : (
          'Plan'
        )}{' '}
        {a.sensitive && <span class="badge sensitive">sensitive</span>} <span class="badge">{a.status}</span>
      </p>
      {action ? (
        <ActionView tool={action.tool} args={action.args} />
      ) : (
        <p>
          <strong class="action-title">Approve a plan of {steps.length} steps</strong>
        </p>
      )}
      {steps.length > 0 && (
        <ol class="plan">
          {steps.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
      )}
      <p class="meta">
        Agent <strong>{a.agent_name}</strong> · started by <span data-testid="started-by">{who}</span> · task{' '}
        {a.task_title || a.task_id} · run{' '}
        <span class={`badge status-${a.run_status}`}>{runStatusLabel(a.run_status)}</span> ·{' '}
        {new Date(a.created_at).toLocaleString()}
      </p>
      <p class="links">
        <a href={`#/inspect/${encodeURIComponent(a.run_id)}`}>Open the run's trace</a> ·{' '}
        <button type="button" class="link" aria-expanded={conversation} onClick={() => setConversation((c) => !c)}>
          {conversation ? 'Hide the conversation' : 'Show the conversation so far'}
        </button>
      </p>
      {conversation && <ConversationSoFar session={session} agentId={a.agent_id} taskId={a.task_id} />}
      {a.status === 'pending' && !mayDecide && (
        <p class="note">Only an owner or admin may decide a sensitive approval.</p>
      )}
      {open && (
        <div class="form">
          <label>
            Feedback (optional)
            <input value={feedback} onInput={(e) => setFeedback(e.currentTarget.value)} />
          </label>
          {a.kind === 'action' && (
            <>
              <label class="check">
                <input type="checkbox" checked={runScope} onChange={(e) => setRunScope(e.currentTarget.checked)} />
                Allow {action?.tool} for the rest of this run
              </label>
              <label class="check">
                <input type="checkbox" checked={always} onChange={(e) => setAlways(e.currentTarget.checked)} />
                Always allow {action?.tool} for {a.agent_name} (everyone in the org)
              </label>
            </>
          )}
          <div class="buttons">
            <button type="button" onClick={() => void decide('approve')}>
              Approve
            </button>
            <button type="button" class="danger" onClick={() => void decide('reject')}>
              Reject
            </button>
          </div>
        </div>
      )}
      {a.feedback && <p class="meta">Feedback: {a.feedback}</p>}
      <details>
        <summary>Request as stored</summary>
        <p>{a.prompt}</p>
        <pre>{JSON.stringify(a.details, null, 2)}</pre>
      </details>
      {result && <p role="status">{result}</p>}
    </li>
  );
}

/** The task's messages so far (what the user asked, what the agent answered, the tools it called). */
function ConversationSoFar({ session, agentId, taskId }: { session: Session; agentId: string; taskId: string }) {
  const [messages, setMessages] = useState<Message[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    session
      .forAgent(agentId)
      .tasks.messages(taskId, { signal: abort.signal })
      .then(
        (list) => setMessages(list.messages),
        (err) => abort.signal.aborted || setError(errorText(err)),
      );
    return () => abort.abort();
  }, [session, agentId, taskId]);
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!messages) return <p role="status">Loading the conversation…</p>;
  const shown = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  return (
    <ol class="conversation-so-far" aria-label="Conversation so far">
      {shown.map((m) => (
        <li key={m.id} class={`message ${m.role}`}>
          <strong>{m.role === 'user' ? 'User' : 'Agent'}:</strong> {m.content}
          {m.parts?.tool_calls?.map((c) => (
            <span key={c.id} class="badge">
              {c.name}
            </span>
          ))}
        </li>
      ))}
      {shown.length === 0 && <li>No messages yet.</li>}
    </ol>
  );
}
