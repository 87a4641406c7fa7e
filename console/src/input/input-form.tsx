/** The form for one question a run waits on: one per input type, each with Dismiss. */
import type { InputAnswer, UserInputRequest } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { ApprovalForms } from './approval-forms.tsx';
import { ValueForms } from './value-forms.tsx';

export interface InputFormProps {
  request: UserInputRequest;
  /** Owners and admins: may decide sensitive approvals. */
  admin: boolean;
  /** Guests may not grant approve_always. */
  guest: boolean;
  onAnswer(answer: InputAnswer): Promise<void>;
}

/** Sends through `onAnswer`; shows the service's refusal, if any, and keeps the form open then. */
export function InputForm(props: InputFormProps) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const send = async (answer: InputAnswer) => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onAnswer(answer);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const { request } = props;
  const approval = request.input_type === 'plan_approval' || request.input_type === 'action_approval';
  return (
    <section class="input-request" aria-label="The run asks you" data-input-type={request.input_type}>
      <h3 class="prompt">{request.prompt}</h3>
      <fieldset disabled={busy}>
        {approval ? <ApprovalForms {...props} send={send} /> : <ValueForms request={request} send={send} />}
        <button type="button" class="secondary" onClick={() => void send({ cancelled: true })}>
          Dismiss
        </button>
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
