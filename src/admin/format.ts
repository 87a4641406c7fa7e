import type { AgentSummary } from './agents.ts';
import type { ApiKeySummary } from './api-keys.ts';
import type { ApplyResult } from './apply.ts';
import type { GrantSummary } from './grants.ts';
import type { OrgSummary } from './orgs.ts';
import type { UserSummary } from './users.ts';
import type { WidgetKeySummary } from './widget-keys.ts';

/** Human-readable output of the admin commands (`--json` prints the records themselves). */

export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export const orgTable = (orgs: OrgSummary[]) =>
  table(
    ['ID', 'NAME', 'CREDITS', 'MAX RUNS', 'USERS', 'AGENTS', 'CREATED'],
    orgs.map((o) => [
      o.id,
      o.name,
      o.credits,
      o.max_concurrent_runs === null ? '-' : String(o.max_concurrent_runs),
      String(o.users),
      String(o.agents),
      o.created_at,
    ]),
  );

export const userTable = (users: UserSummary[]) =>
  table(
    ['ID', 'EMAIL', 'ROLE', 'NAME', 'CREATED'],
    users.map((u) => [u.id, u.email, u.role, u.name, u.created_at]),
  );

export const agentTable = (agents: AgentSummary[]) =>
  table(
    ['ID', 'NAME', 'CUSTOMER-FACING', 'ACCESS', 'SETTINGS'],
    agents.map((a) => [
      a.id,
      a.name,
      a.customer_facing ? 'yes' : 'no',
      a.access.join(',') || '-',
      JSON.stringify(a.settings),
    ]),
  );

export const keyTable = (keys: ApiKeySummary[]) =>
  table(
    ['ID', 'USER', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
    keys.map((k) => [
      k.id,
      k.user_id,
      k.name || '-',
      `${k.prefix}…`,
      k.created_at,
      k.last_used_at ?? '-',
      k.revoked_at ?? '-',
    ]),
  );

export const widgetKeyTable = (keys: WidgetKeySummary[]) =>
  table(
    ['ID', 'AGENT', 'NAME', 'PREFIX', 'ORIGINS', 'CREATED', 'REVOKED'],
    keys.map((k) => [k.id, k.agent_id, k.name, `${k.prefix}…`, k.origins.join(','), k.created_at, k.revoked_at ?? '-']),
  );

export const grantTable = (grants: GrantSummary[]) =>
  table(
    ['ID', 'ORG', 'AGENT', 'TOOL', 'GRANTED BY', 'CREATED', 'REVOKED'],
    grants.map((g) => [g.id, g.org_id, g.agent_id, g.tool_name, g.granted_by, g.created_at, g.revoked_at ?? '-']),
  );

export function applySummary(result: ApplyResult): string {
  const lines: string[] = [];
  if (result.dry_run) lines.push('dry run: nothing was written');
  lines.push(...(result.changes.length ? result.changes : ['no changes']));
  for (const org of result.orgs) {
    lines.push('', `org "${org.name}" ${org.id} (credits ${org.credits})`);
    for (const [email, id] of Object.entries(org.users)) lines.push(`  user  ${id}  ${email}`);
    for (const [name, id] of Object.entries(org.agents)) lines.push(`  agent ${id}  ${name}`);
    for (const k of org.keys) lines.push(`  key   ${k.id}  ${k.user} "${k.name}"${k.key ? `  NEW: ${k.key}` : ''}`);
    for (const w of org.webhooks)
      lines.push(`  webhook ${w.id}  "${w.name}"${w.secret ? `  NEW SECRET: ${w.secret}` : ''}`);
    for (const f of org.flows)
      lines.push(
        `  flow  ${f.id}  ${f.kind} "${f.name}"${f.path ? `  POST ${f.path}` : ''}${f.secret ? `  NEW SECRET: ${f.secret}` : ''}`,
      );
    for (const w of org.widget_keys)
      lines.push(
        `  widget-key ${w.id}  "${w.name}" ${w.revoked ? 'revoked' : w.origins.join(',')}${w.key ? `  NEW: ${w.key}` : ''}`,
      );
  }
  if (result.orgs.some((o) => o.keys.some((k) => k.key) || o.widget_keys.some((w) => w.key)))
    lines.push('', 'Store the NEW keys now: they are not shown again.');
  if (result.orgs.some((o) => o.webhooks.some((w) => w.secret) || o.flows.some((f) => f.secret)))
    lines.push('', 'Give each NEW secret to its sender or receiver now: it is not shown again.');
  return lines.join('\n');
}
