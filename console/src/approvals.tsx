/** The org's approvals inbox across agents: sensitive ones marked; approve or reject with feedback. */
import type { Approval, ApprovalStatus } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { errorText, isAdmin, type Session } from './session.ts';

export function ApprovalsView({ session }: { session: Session }) {
  const [status, setStatus] = useState<ApprovalStatus>('pending');
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    session.client.approvals.list({ status, signal: abort.signal }).then(
      (list) => (setApprovals(list.approvals), setError(undefined)),
      (err) => abort.signal.aborted || setError(errorText(err)),
    );
    return () => abort.abort();
  }, [session, status, version]);
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {approvals.length === 0 && !error && <p>No approvals.</p>}
      <ul class="cards">
        {approvals.map((a) => (
          <ApprovalCard key={a.id} approval={a} session={session} onDecided={() => setVersion((v) => v + 1)} />
        ))}
      </ul>
    </main>
  );
}

function ApprovalCard({ approval, session, onDecided }: { approval: Approval; session: Session; onDecided(): void }) {
  const [feedback, setFeedback] = useState('');
  const [result, setResult] = useState<string>();
  const decide = async (decision: 'approve' | 'reject') => {
    try {
      await session.client.approvals.respond(approval.id, { decision, ...(feedback ? { feedback } : {}) });
      setResult(`${decision === 'approve' ? 'Approved' : 'Rejected'}`);
      onDecided();
    } catch (err) {
      setResult(errorText(err));
    }
  };
  const mayDecide = !approval.sensitive || isAdmin(session.identity);
  return (
    <li class="card" data-approval-id={approval.id} aria-label={`Approval ${approval.tool_name ?? approval.kind}`}>
      <p>
        <strong>{approval.kind === 'plan' ? 'Plan' : approval.tool_name}</strong>{' '}
        {approval.sensitive && <span class="badge sensitive">sensitive</span>}{' '}
        <span class="badge">{approval.status}</span>
      </p>
      <p>{approval.prompt}</p>
      <p class="meta">
        Agent {approval.agent_id} · <a href={`#/inspect/${approval.run_id}`}>run {approval.run_id}</a> ·{' '}
        {new Date(approval.created_at).toLocaleString()}
      </p>
      <details>
        <summary>Details</summary>
        <pre>{JSON.stringify(approval.details, null, 2)}</pre>
      </details>
      {approval.status === 'pending' && (
        <div class="form">
          {!mayDecide && <p class="note">Only an owner or admin may decide a sensitive approval.</p>}
          <label>
            Feedback (optional)
            <input value={feedback} onInput={(e) => setFeedback(e.currentTarget.value)} />
          </label>
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
      {approval.feedback && <p class="meta">Feedback: {approval.feedback}</p>}
      {result && <p role="status">{result}</p>}
    </li>
  );
}
