/** The conversation: messages (markdown), thoughts, tool calls as collapsible cards, questions as forms. */
import type { InputAnswer, UserInputRequest } from '@agent-run/client';
import { markdownToHtml } from '../markdown.ts';
import { InputForm } from '../input/input-form.tsx';
import type { Item } from './run-view.ts';
import { serverToolParts } from '../event-summary.ts';

interface Props {
  items: Item[];
  admin: boolean;
  guest: boolean;
  onAnswer(request: UserInputRequest, answer: InputAnswer): Promise<void>;
}

export function Conversation({ items, admin, guest, onAnswer }: Props) {
  return (
    <ol class="conversation" aria-label="Conversation" aria-live="polite">
      {items.map((item) => (
        <li key={`${item.kind}-${item.id}`} class={`item ${item.kind}`}>
          <ItemView item={item} admin={admin} guest={guest} onAnswer={onAnswer} />
        </li>
      ))}
    </ol>
  );
}

function ItemView({ item, admin, guest, onAnswer }: Omit<Props, 'items'> & { item: Item }) {
  switch (item.kind) {
    case 'user':
      return <p class="user-text">{item.text}</p>;
    case 'assistant':
      return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdownToHtml(item.text) }} />;
    case 'thought':
      return (
        <details class="thought">
          <summary>Thinking</summary>
          <p>{item.text}</p>
        </details>
      );
    case 'tool':
      return (
        <details class="tool-card">
          <summary>
            Tool <code>{item.name}</code>{' '}
            {serverToolParts(item.name) && <span class="badge">{serverToolParts(item.name)!.server}</span>}{' '}
            <span class="badge">{item.result === undefined ? 'running' : 'done'}</span>
          </summary>
          <h4>Arguments</h4>
          <pre>{pretty(item.args)}</pre>
          {item.result !== undefined && (
            <>
              <h4>Result</h4>
              <pre>{pretty(item.result)}</pre>
            </>
          )}
        </details>
      );
    case 'input':
      return item.answered ? (
        <p class="answered">Answered: {item.request.prompt}</p>
      ) : (
        <InputForm
          request={item.request}
          admin={admin}
          guest={guest}
          onAnswer={(answer) => onAnswer(item.request, answer)}
        />
      );
    case 'error':
      return (
        <p role="alert" class="error">
          {item.text}
        </p>
      );
  }
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
