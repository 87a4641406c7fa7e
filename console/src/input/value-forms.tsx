/** Forms of the input types that ask for values: confirmation, text, number, choice, multiline, structured_questions. */
import type { InputAnswer, UserInputRequest } from '@agent-run/client';
import { useState } from 'preact/hooks';

interface Props {
  request: UserInputRequest;
  send(answer: InputAnswer): Promise<void>;
}

const submit = (send: () => void) => (e: Event) => {
  e.preventDefault();
  send();
};

export function ValueForms({ request, send }: Props) {
  switch (request.input_type) {
    case 'confirmation':
      return <Confirmation send={send} />;
    case 'text':
    case 'number':
    case 'multiline':
      return <Value request={request} send={send} />;
    case 'choice':
      return <Choice choices={request.choices ?? []} send={send} />;
    case 'structured_questions':
      return <Questions questions={request.questions ?? []} send={send} />;
    default:
      return null;
  }
}

function Confirmation({ send }: Pick<Props, 'send'>) {
  const [text, setText] = useState('');
  const answer = (confirmed: boolean) => void send({ confirmed, ...(text ? { response_text: text } : {}) });
  return (
    <div class="form">
      <label>
        Comment (optional)
        <input value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <div class="buttons">
        <button type="button" onClick={() => answer(true)}>
          Yes
        </button>
        <button type="button" onClick={() => answer(false)}>
          No
        </button>
      </div>
    </div>
  );
}

function Value({ request, send }: Props) {
  const [value, setValue] = useState('');
  const label = request.input_type === 'number' ? 'Number' : 'Your answer';
  return (
    <form class="form" onSubmit={submit(() => void send({ value }))}>
      <label>
        {label}
        {request.input_type === 'multiline' ? (
          <textarea rows={5} value={value} required onInput={(e) => setValue(e.currentTarget.value)} />
        ) : request.input_type === 'number' ? (
          <input type="number" step="any" value={value} required onInput={(e) => setValue(e.currentTarget.value)} />
        ) : (
          <input type="text" value={value} required onInput={(e) => setValue(e.currentTarget.value)} />
        )}
      </label>
      <button type="submit">Send</button>
    </form>
  );
}

function Choice({ choices, send }: { choices: string[]; send: Props['send'] }) {
  const [value, setValue] = useState('');
  return (
    <form class="form" onSubmit={submit(() => void send({ value }))}>
      <div role="radiogroup" aria-label="Choices" class="choices">
        {choices.map((c) => (
          <label key={c}>
            <input type="radio" name="choice" value={c} checked={value === c} required onChange={() => setValue(c)} />
            {c}
          </label>
        ))}
      </div>
      <button type="submit">Send</button>
    </form>
  );
}

function Questions({
  questions,
  send,
}: {
  questions: { question: string; choices?: string[] }[];
  send: Props['send'];
}) {
  const [answers, setAnswers] = useState<Record<string, string>>(() =>
    Object.fromEntries(questions.map((q) => [q.question, q.choices?.[0] ?? ''])),
  );
  const set = (q: string, v: string) => setAnswers({ ...answers, [q]: v });
  return (
    <form class="form" onSubmit={submit(() => void send({ answers }))}>
      {questions.map((q) => (
        <label key={q.question}>
          {q.question}
          {q.choices?.length ? (
            <select value={answers[q.question]} onChange={(e) => set(q.question, e.currentTarget.value)}>
              {q.choices.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          ) : (
            <input value={answers[q.question]} required onInput={(e) => set(q.question, e.currentTarget.value)} />
          )}
        </label>
      ))}
      <button type="submit">Send</button>
    </form>
  );
}
