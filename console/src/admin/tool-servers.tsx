/** An agent's MCP tool servers in its form: add, edit, remove, and "Test connection" (a worker connects and lists). */
import type { OrgDocument, ToolServerTestResult } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { errorText, type Session } from '../session.ts';

type ToolServer = NonNullable<NonNullable<OrgDocument['agents'][number]['settings']>['tool_servers']>[number];

interface HeaderRow {
  name: string;
  /** A secret of the org (its name), or a plain value: settings allow plain values only for non-credential headers. */
  source: 'secret' | 'plain';
  value: string;
}

export interface ServerRow {
  name: string;
  url: string;
  headers: HeaderRow[];
  /** Comma-separated; empty: every tool of the server. */
  allowedTools: string;
  timeout: string;
  /** OAuth client credentials, kept as `admin apply` set them (this form does not edit them yet). */
  oauth?: ToolServer['oauth'];
}

export function fromServer(s: ToolServer): ServerRow {
  return {
    name: s.name,
    url: s.url,
    headers: Object.entries(s.headers ?? {}).map(([name, v]) =>
      typeof v === 'string' ? { name, source: 'plain', value: v } : { name, source: 'secret', value: v.secret },
    ),
    allowedTools: s.allowed_tools?.join(', ') ?? '',
    timeout: s.timeout_seconds?.toString() ?? '',
    ...(s.oauth ? { oauth: s.oauth } : {}),
  };
}

export function toServer(r: ServerRow): ToolServer {
  const headers = Object.fromEntries(
    r.headers
      .filter((h) => h.name.trim())
      .map((h) => [h.name.trim(), h.source === 'secret' ? { secret: h.value } : h.value]),
  );
  const allowed = r.allowedTools
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    name: r.name.trim(),
    url: r.url.trim(),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(allowed.length ? { allowed_tools: allowed } : {}),
    ...(r.timeout ? { timeout_seconds: Number(r.timeout) } : {}),
    ...(r.oauth ? { oauth: r.oauth } : {}),
  };
}

const EMPTY: ServerRow = { name: '', url: '', headers: [], allowedTools: '', timeout: '' };

export function ToolServers(props: {
  session: Session;
  servers: ServerRow[];
  secretNames: string[];
  onChange: (servers: ServerRow[]) => void;
}) {
  const { servers, onChange } = props;
  const replace = (i: number, row: ServerRow) => onChange(servers.map((s, j) => (j === i ? row : s)));
  return (
    <fieldset class="tool-servers">
      <legend>Tool servers (MCP)</legend>
      {servers.length === 0 && <p class="note">None: the agent has only the catalog's tools.</p>}
      {servers.map((row, i) => (
        <ServerEditor
          key={i}
          {...props}
          index={i}
          row={row}
          onChange={(r) => replace(i, r)}
          onRemove={() => onChange(servers.filter((_, j) => j !== i))}
        />
      ))}
      <div class="buttons">
        <button type="button" class="secondary" onClick={() => onChange([...servers, { ...EMPTY }])}>
          Add tool server
        </button>
      </div>
    </fieldset>
  );
}

function ServerEditor(props: {
  session: Session;
  secretNames: string[];
  index: number;
  row: ServerRow;
  onChange: (row: ServerRow) => void;
  onRemove: () => void;
}) {
  const { session, secretNames, index, row, onChange } = props;
  const [test, setTest] = useState<{ result?: ToolServerTestResult; error?: string; busy?: boolean }>({});
  const update = (change: Partial<ServerRow>) => onChange({ ...row, ...change });
  const setHeader = (i: number, change: Partial<HeaderRow>) =>
    update({ headers: row.headers.map((h, j) => (j === i ? { ...h, ...change } : h)) });
  const label = `Tool server ${row.name || index + 1}`;
  const runTest = async () => {
    setTest({ busy: true });
    try {
      setTest({ result: await session.client.admin.testToolServer(toServer(row)) });
    } catch (err) {
      setTest({ error: errorText(err) });
    }
  };
  return (
    <div class="card tool-server" role="group" aria-label={label}>
      <div class="form inline">
        <label>
          Server name
          <input
            required
            pattern="[a-z][a-z0-9_\-]{0,31}"
            title="lowercase letters, digits, _ and -; starts with a letter"
            value={row.name}
            onInput={(e) => update({ name: e.currentTarget.value })}
          />
        </label>
        <label class="grow">
          Server URL
          <input
            type="url"
            required
            placeholder="https://tools.example.com/mcp"
            value={row.url}
            onInput={(e) => update({ url: e.currentTarget.value })}
          />
        </label>
        <label>
          Timeout (seconds)
          <input
            type="number"
            min={1}
            max={900}
            placeholder="60"
            value={row.timeout}
            onInput={(e) => update({ timeout: e.currentTarget.value })}
          />
        </label>
      </div>
      <label>
        Allowed tools (comma-separated; empty: all)
        <input value={row.allowedTools} onInput={(e) => update({ allowedTools: e.currentTarget.value })} />
      </label>
      {row.headers.map((h, i) => (
        <div key={i} class="form inline" role="group" aria-label={`Header ${i + 1}`}>
          <label>
            Header name
            <input required value={h.name} onInput={(e) => setHeader(i, { name: e.currentTarget.value })} />
          </label>
          <label>
            Value from
            <select
              aria-label={`Value of header ${h.name || i + 1} from`}
              value={h.source}
              onChange={(e) => setHeader(i, { source: e.currentTarget.value as HeaderRow['source'], value: '' })}
            >
              <option value="secret">an org secret</option>
              <option value="plain">plain text (no credentials)</option>
            </select>
          </label>
          {h.source === 'secret' ? (
            <label>
              Secret
              <select
                required
                aria-label={`Secret for header ${h.name || i + 1}`}
                value={h.value}
                onChange={(e) => setHeader(i, { value: e.currentTarget.value })}
              >
                <option value="">choose…</option>
                {secretNames.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <label class="grow">
              Value
              <input value={h.value} onInput={(e) => setHeader(i, { value: e.currentTarget.value })} />
            </label>
          )}
          <button
            type="button"
            class="secondary"
            aria-label={`Remove header ${h.name || i + 1}`}
            onClick={() => update({ headers: row.headers.filter((_, j) => j !== i) })}
          >
            Remove
          </button>
        </div>
      ))}
      {row.oauth && (
        <p class="note">
          OAuth client credentials: client {row.oauth.client_id}, secret {row.oauth.client_secret.secret}
          {row.oauth.scope ? `, scope ${row.oauth.scope}` : ''} (set with admin apply; kept when saved here).
        </p>
      )}
      {secretNames.length === 0 && <p class="note">No org secrets yet: set them in Admin → Secrets.</p>}
      <div class="buttons">
        <button
          type="button"
          class="secondary"
          onClick={() => update({ headers: [...row.headers, { name: '', source: 'secret', value: '' }] })}
        >
          Add header
        </button>
        <button type="button" class="secondary" disabled={test.busy || !row.name || !row.url} onClick={runTest}>
          {test.busy ? 'Testing…' : 'Test connection'}
        </button>
        <button type="button" class="danger" aria-label={`Remove ${label}`} onClick={props.onRemove}>
          Remove server
        </button>
      </div>
      <TestResult {...test} />
    </div>
  );
}

function TestResult({ result, error }: { result?: ToolServerTestResult; error?: string }) {
  if (error)
    return (
      <p role="alert" class="error">
        Test refused: {error}
      </p>
    );
  if (!result) return null;
  if (!result.ok)
    return (
      <p role="alert" class="error" aria-label="Connection test">
        Could not connect: {result.reason}
      </p>
    );
  return (
    <div role="status" aria-label="Connection test" class="test-result">
      <p>
        Connected ({result.transport}): {result.count} {result.count === 1 ? 'tool' : 'tools'} offered to the model.
      </p>
      <ul>
        {result.tools.map((t) => (
          <li key={t.name}>
            <code>{t.name}</code> <span class="meta">{t.description}</span>
          </li>
        ))}
      </ul>
      {result.unknown_allowed_tools.length > 0 && (
        <p class="error">Not offered by the server: {result.unknown_allowed_tools.join(', ')}</p>
      )}
    </div>
  );
}
