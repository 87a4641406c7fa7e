/** What an apply changed (or a preview would change), and any new key or secret, which is shown this once. */
import type { OrgApplyResult } from '@agent-run/client';

export function ApplyResultView({ result, error }: { result?: OrgApplyResult; error?: string }) {
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!result) return null;
  const widgetKeys = result.org.widget_keys.filter((k) => k.key);
  const secrets = result.org.flows.filter((f) => f.secret);
  const hookSecrets = result.org.webhooks.filter((w) => w.secret);
  return (
    <div class="card apply-result" role="status">
      <p>
        <strong>{result.dry_run ? 'Preview (nothing was changed)' : 'Applied'}</strong>
        {result.changes.length === 0 && ': nothing to change.'}
      </p>
      {result.changes.length > 0 && (
        <ul aria-label="Changes">
          {result.changes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
      )}
      {widgetKeys.map((k) => (
        <p key={k.id}>
          New widget key "{k.name}". Copy it now: it is not shown again.
          <output class="new-key" aria-label={`New widget key ${k.name}`}>
            {k.key}
          </output>
        </p>
      ))}
      {secrets.map((f) => (
        <p key={f.id}>
          Secret of flow "{f.name}". Copy it now: it is not shown again.
          <output class="new-key" aria-label={`Secret of flow ${f.name}`}>
            {f.secret}
          </output>
        </p>
      ))}
      {hookSecrets.map((w) => (
        <p key={w.id}>
          Signing secret of webhook "{w.name}". Copy it now: it is not shown again.
          <output class="new-key" aria-label={`Secret of webhook ${w.name}`}>
            {w.secret}
          </output>
        </p>
      ))}
    </div>
  );
}
