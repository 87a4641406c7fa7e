/** An action waiting for approval, as the inbox and the chat's approval form show it: in words, its arguments first. */
import { describeAction } from './approval-action.ts';

export function ActionView({ tool, args }: { tool: string; args: Record<string, unknown> }) {
  const summary = describeAction(tool, args);
  return (
    <>
      <p>
        <strong class="action-title">{summary.title}</strong>
      </p>
      {summary.fields.length > 0 && (
        <dl class="action-args">
          {summary.fields.map((f) => (
            <div key={f.name} class={f.block ? 'block' : undefined}>
              <dt>{f.name}</dt>
              <dd>{f.block ? <pre class="args">{f.value}</pre> : <code>{f.value}</code>}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}
