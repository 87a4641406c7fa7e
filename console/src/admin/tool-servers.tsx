/**
 * An agent's MCP tool servers in its form: add, edit, remove, OAuth (client credentials, or the
 * authorization code with "Connect"), and "Test connection" (a worker connects and lists).
 */
import type { OrgDocument, OrgSecret, ToolServerTestResult } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
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
  oauth: OAuthRow;
}

/** A server's OAuth as the form edits it: secrets by name only. */
interface OAuthRow {
  grant: '' | 'client_credentials' | 'authorization_code';
  clientId: string;
  /** The org secret holding the client secret; empty: none (a public client, authorization code only). */
  clientSecret: string;
  scope: string;
  issuer: string;
  /** The org secret Connect writes (authorization code). */
  refreshSecret: string;
  /** private_key_jwt (client credentials), kept as `admin apply` set it: this form does not edit it. */
  privateKey?: { secret: string; algorithm?: string };
}

const NO_OAUTH: OAuthRow = { grant: '', clientId: '', clientSecret: '', scope: '', issuer: '', refreshSecret: '' };

function fromOAuth(o: ToolServer['oauth']): OAuthRow {
  if (!o) return { ...NO_OAUTH };
  return {
    grant: o.grant,
    clientId: o.client_id ?? '',
    clientSecret: o.client_secret?.secret ?? '',
    scope: o.scope ?? '',
    issuer: o.issuer ?? '',
    refreshSecret: o.grant === 'authorization_code' ? o.refresh_token.secret : '',
    ...(o.grant === 'client_credentials' && o.private_key
      ? { privateKey: { secret: o.private_key.secret, algorithm: o.signing_algorithm } }
      : {}),
  };
}

function toOAuth(o: OAuthRow): ToolServer['oauth'] {
  const common = {
    ...(o.scope.trim() ? { scope: o.scope.trim() } : {}),
    ...(o.issuer.trim() ? { issuer: o.issuer.trim() } : {}),
  };
  if (o.grant === 'client_credentials')
    return {
      grant: o.grant,
      client_id: o.clientId.trim(),
      ...(o.privateKey
        ? {
            private_key: { secret: o.privateKey.secret },
            ...(o.privateKey.algorithm ? { signing_algorithm: o.privateKey.algorithm as 'RS256' } : {}),
          }
        : { client_secret: { secret: o.clientSecret } }),
      ...common,
    };
  if (o.grant === 'authorization_code')
    return {
      grant: o.grant,
      ...(o.clientId.trim() ? { client_id: o.clientId.trim() } : {}),
      ...(o.clientSecret ? { client_secret: { secret: o.clientSecret } } : {}),
      ...common,
      refresh_token: { secret: o.refreshSecret.trim() },
    };
  return undefined;
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
    oauth: fromOAuth(s.oauth),
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
    ...(r.oauth.grant ? { oauth: toOAuth(r.oauth) } : {}),
  };
}

const EMPTY: ServerRow = { name: '', url: '', headers: [], allowedTools: '', timeout: '', oauth: NO_OAUTH };

export function ToolServers(props: {
  session: Session;
  servers: ServerRow[];
  secrets: OrgSecret[];
  /** Reads the org's secrets again (Connect writes one). */
  readSecrets: () => Promise<OrgSecret[]>;
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
  secrets: OrgSecret[];
  readSecrets: () => Promise<OrgSecret[]>;
  index: number;
  row: ServerRow;
  onChange: (row: ServerRow) => void;
  onRemove: () => void;
}) {
  const { session, secrets, index, row, onChange } = props;
  const secretNames = secrets.map((s) => s.name);
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
      <OAuthEditor {...props} secretNames={secretNames} oauth={row.oauth} onChange={(oauth) => update({ oauth })} />
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

function SecretSelect(props: {
  label: string;
  value: string;
  secretNames: string[];
  required?: boolean;
  none?: string;
  onChange: (name: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select required={props.required} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.none ?? 'choose…'}</option>
        {props.secretNames.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

/** OAuth of one server: the grant, the client (secrets by name), and Connect for the authorization code. */
function OAuthEditor(props: {
  session: Session;
  secrets: OrgSecret[];
  readSecrets: () => Promise<OrgSecret[]>;
  secretNames: string[];
  row: ServerRow;
  oauth: OAuthRow;
  onChange: (oauth: OAuthRow) => void;
}) {
  const { oauth, secretNames } = props;
  const set = (change: Partial<OAuthRow>) => props.onChange({ ...oauth, ...change });
  const name = props.row.name || 'server';
  return (
    <div role="group" aria-label={`OAuth of ${name}`}>
      <div class="form inline">
        <label>
          Authorization
          <select
            value={oauth.grant}
            onChange={(e) => {
              const grant = e.currentTarget.value as OAuthRow['grant'];
              const refreshSecret =
                oauth.refreshSecret || `${(props.row.name || 'server').toUpperCase().replace(/[^A-Z0-9]/g, '_')}_OAUTH`;
              set({ grant, ...(grant === 'authorization_code' ? { refreshSecret } : {}) });
            }}
          >
            <option value="">headers only (no OAuth)</option>
            <option value="client_credentials">OAuth client credentials (machine to machine)</option>
            <option value="authorization_code">OAuth authorization code (a user connects)</option>
          </select>
        </label>
        {oauth.grant && (
          <>
            <label>
              Client ID
              <input
                required={oauth.grant === 'client_credentials'}
                placeholder={oauth.grant === 'authorization_code' ? 'registered when connecting' : ''}
                value={oauth.clientId}
                onInput={(e) => set({ clientId: e.currentTarget.value })}
              />
            </label>
            {oauth.grant === 'client_credentials' && oauth.privateKey ? (
              <p class="note">
                private_key_jwt: key from org secret {oauth.privateKey.secret} (set with admin apply; kept when saved
                here)
              </p>
            ) : (
              <SecretSelect
                label="Client secret"
                value={oauth.clientSecret}
                secretNames={secretNames}
                required={oauth.grant === 'client_credentials'}
                {...(oauth.grant === 'authorization_code' ? { none: 'none (public client)' } : {})}
                onChange={(clientSecret) => set({ clientSecret })}
              />
            )}
            <label>
              Scope
              <input value={oauth.scope} onInput={(e) => set({ scope: e.currentTarget.value })} />
            </label>
            <label class="grow">
              Issuer (optional)
              <input
                type="url"
                placeholder="the one the server names"
                value={oauth.issuer}
                onInput={(e) => set({ issuer: e.currentTarget.value })}
              />
            </label>
          </>
        )}
      </div>
      {oauth.grant === 'authorization_code' && <Connect {...props} />}
    </div>
  );
}

/** Connect: the api starts the authorization, the admin consents in a new window, the grant lands in the org secret. */
function Connect(props: {
  session: Session;
  secrets: OrgSecret[];
  readSecrets: () => Promise<OrgSecret[]>;
  row: ServerRow;
  oauth: OAuthRow;
  onChange: (oauth: OAuthRow) => void;
}) {
  const { oauth, secrets } = props;
  const stored = secrets.find((s) => s.name === oauth.refreshSecret.trim());
  const [state, setState] = useState<{ waiting?: string; error?: string }>({});
  // While the consent window is open: read the secrets until the grant's secret is written (or ten minutes pass).
  useEffect(() => {
    if (!state.waiting) return;
    const since = state.waiting;
    const until = Date.now() + 10 * 60_000;
    const timer = setInterval(() => {
      if (Date.now() > until) return setState({ error: 'no consent within ten minutes: Connect again' });
      void props.readSecrets().then((list) => {
        const s = list.find((x) => x.name === oauth.refreshSecret.trim());
        if (s && s.updated_at > since) setState({});
      });
    }, 2000);
    return () => clearInterval(timer);
  }, [state.waiting]);
  const connect = async () => {
    // Opened at the click, so no popup blocker stops it; it goes to the authorization server once the api answers.
    const popup = window.open('about:blank', '_blank');
    setState({ waiting: new Date(Date.now() - 1000).toISOString() });
    try {
      const started = await props.session.client.admin.connectToolServer(toServer(props.row));
      if (popup) popup.location.href = started.authorization_url;
      else window.location.assign(started.authorization_url);
    } catch (err) {
      popup?.close();
      setState({ error: errorText(err) });
    }
  };
  return (
    <div class="form inline">
      <label>
        Store the connection in org secret
        <input
          required
          pattern="[A-Za-z][A-Za-z0-9_.\-]{0,63}"
          value={oauth.refreshSecret}
          onInput={(e) => props.onChange({ ...oauth, refreshSecret: e.currentTarget.value })}
        />
      </label>
      <p role="status" aria-label={`Connection of ${props.row.name || 'server'}`}>
        {state.waiting
          ? 'Waiting for consent in the other window…'
          : stored
            ? `Connected (${new Date(stored.updated_at).toLocaleString()})`
            : 'Not connected'}
      </p>
      <button
        type="button"
        class="secondary"
        disabled={!props.row.name || !props.row.url || !oauth.refreshSecret.trim()}
        onClick={() => void connect()}
      >
        {stored ? 'Connect again' : 'Connect'}
      </button>
      {state.error && (
        <p role="alert" class="error">
          Connect refused: {state.error}
        </p>
      )}
    </div>
  );
}
