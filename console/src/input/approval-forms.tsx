/** Plan approval (editable steps) and action approval (approve-always / run-scope where the role allows). */
import type { InputAnswer, UserInputRequest } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { ActionView } from '../action-view.tsx';

interface Props {
  request: UserInputRequest;
  admin: boolean;
  guest: boolean;
  send(answer: InputAnswer): Promise<void>;
}

export function ApprovalForms(props: Props) {
  return props.request.input_type === 'plan_approval' ? <PlanApproval {...props} /> : <ActionApproval {...props} />;
}

function PlanApproval({ request, send }: Props) {
  const proposed = request.plan?.steps ?? [];
  const [steps, setSteps] = useState<string[]>(proposed);
  const [feedback, setFeedback] = useState('');
  const edited = steps.length !== proposed.length || steps.some((s, i) => s !== proposed[i]);
  const kept = steps.map((s) => s.trim()).filter(Boolean);
  const decide = (approved: boolean) =>
    void send({
      approved,
      ...(approved && edited && kept.length ? { modified_steps: kept } : {}),
      ...(feedback ? { feedback } : {}),
    });
  return (
    <div class="form">
      <ol class="plan-steps">
        {steps.map((step, i) => (
          <li key={i}>
            <input
              aria-label={`Step ${i + 1}`}
              value={step}
              onInput={(e) => setSteps(steps.map((s, j) => (j === i ? e.currentTarget.value : s)))}
            />
            <button
              type="button"
              class="secondary"
              aria-label={`Remove step ${i + 1}`}
              onClick={() => setSteps(steps.filter((_, j) => j !== i))}
            >
              ✕
            </button>
          </li>
        ))}
      </ol>
      <button type="button" class="secondary" onClick={() => setSteps([...steps, ''])}>
        Add step
      </button>
      <Feedback value={feedback} set={setFeedback} />
      <div class="buttons">
        <button type="button" onClick={() => decide(true)}>
          Approve plan
        </button>
        <button type="button" class="danger" onClick={() => decide(false)}>
          Reject plan
        </button>
      </div>
    </div>
  );
}

function ActionApproval({ request, admin, guest, send }: Props) {
  const action = request.action;
  const [always, setAlways] = useState(false);
  const [runScope, setRunScope] = useState(false);
  const [feedback, setFeedback] = useState('');
  const refused = action?.sensitive && !admin;
  const decide = (approved: boolean) =>
    void send({
      approved,
      ...(approved && always ? { approve_always: true } : {}),
      ...(approved && runScope ? { approve_run_scope: true } : {}),
      ...(feedback ? { feedback } : {}),
    });
  return (
    <div class="form">
      {action && (
        <p>
          Tool <code>{action.tool_name}</code> {action.sensitive && <span class="badge sensitive">sensitive</span>}
        </p>
      )}
      {action && <ActionView tool={action.tool_name} args={argumentsOf(action.arguments)} />}
      {refused && <p class="note">Only an owner or admin may decide a sensitive action.</p>}
      {!guest && (
        <label class="check">
          <input type="checkbox" checked={always} onChange={(e) => setAlways(e.currentTarget.checked)} />
          Always allow this tool for this agent
        </label>
      )}
      <label class="check">
        <input type="checkbox" checked={runScope} onChange={(e) => setRunScope(e.currentTarget.checked)} />
        Allow for the rest of this run
      </label>
      <Feedback value={feedback} set={setFeedback} />
      <div class="buttons">
        <button type="button" disabled={refused} onClick={() => decide(true)}>
          Approve
        </button>
        <button type="button" class="danger" disabled={refused} onClick={() => decide(false)}>
          Reject
        </button>
      </div>
    </div>
  );
}

function Feedback({ value, set }: { value: string; set(v: string): void }) {
  return (
    <label>
      Feedback (optional)
      <textarea rows={2} value={value} onInput={(e) => set(e.currentTarget.value)} />
    </label>
  );
}

function argumentsOf(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
}
