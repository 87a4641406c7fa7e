/**
 * Administration for owners and admins (#/admin/<screen>): members and roles, agents, widget keys,
 * flows, outbound webhooks, API keys, org secrets, usage and credits (with a banner on every screen when
 * credits run low). Every change is a partial apply document sent through the SDK to
 * POST /api/admin/apply, the same code as `admin apply`; the answer's `changes` are shown.
 */
import { useEffect } from 'preact/hooks';
import type { Session } from '../session.ts';
import { Agents } from './agents.tsx';
import { ApiKeys } from './api-keys.tsx';
import { ApplyResultView } from './apply-result.tsx';
import { Flows } from './flows.tsx';
import { Members } from './members.tsx';
import { Secrets } from './secrets.tsx';
import { AdminCreditWarning, UsageScreen } from './usage.tsx';
import { useOrg, type OrgState } from './use-org.ts';
import { Webhooks } from './webhooks.tsx';
import { WidgetKeys } from './widget-keys.tsx';

export interface ScreenProps {
  org: OrgState & { config: NonNullable<OrgState['config']> };
  session: Session;
}

const SCREENS = [
  ['members', 'Members'],
  ['agents', 'Agents'],
  ['widget-keys', 'Widget keys'],
  ['flows', 'Flows'],
  ['webhooks', 'Webhooks'],
  ['api-keys', 'API keys'],
  ['secrets', 'Secrets'],
  ['usage', 'Usage'],
] as const;

export function AdminView({ session, screen }: { session: Session; screen: string }) {
  const org = useOrg(session);
  const current = SCREENS.find(([id]) => id === screen)?.[0] ?? 'members';
  const { clear } = org;
  // A new key or secret is shown on the screen that made it, and not carried to the next.
  useEffect(clear, [current, clear]);
  const config = org.config;
  const props = config && { org: { ...org, config }, session };
  return (
    <main class="admin">
      <h2>
        Administration
        {config && (
          <span class="meta">
            {' '}
            · {config.name} · {config.credits} credits
          </span>
        )}
      </h2>
      {current !== 'usage' && <AdminCreditWarning session={session} />}
      <nav aria-label="Administration" class="subnav">
        {SCREENS.map(([id, label]) => (
          <a key={id} href={`#/admin/${id}`} aria-current={current === id ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {current !== 'api-keys' && current !== 'secrets' && current !== 'usage' && (
        <ApplyResultView result={org.result} error={org.error} />
      )}
      {current === 'usage' ? (
        <UsageScreen session={session} />
      ) : current === 'api-keys' ? (
        <ApiKeys session={session} />
      ) : current === 'secrets' ? (
        <Secrets session={session} />
      ) : !props ? (
        <p role="status">Loading…</p>
      ) : current === 'agents' ? (
        <Agents {...props} />
      ) : current === 'widget-keys' ? (
        <WidgetKeys {...props} />
      ) : current === 'flows' ? (
        <Flows {...props} />
      ) : current === 'webhooks' ? (
        <Webhooks {...props} />
      ) : (
        <Members {...props} />
      )}
    </main>
  );
}
