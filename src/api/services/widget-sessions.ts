import { hashApiKey, WIDGET_KEY_PREFIX } from '../../auth/api-keys.ts';
import { deleteExpiredVisitors, insertVisitor, renewVisitor } from '../../db/users.ts';
import { findWidgetKeyByHash, findWidgetKeyWithAgent, someActiveWidgetKeyAllows } from '../../db/widget-keys.ts';
import { unauthenticated } from '../../shared/domain-error.ts';
import { newId } from '../../shared/ids.ts';
import type { ApiDeps } from '../deps.ts';

/*
 * The embedded widget's visitors: a publishable widget key names an org and a customer-facing agent;
 * each browser that uses it is a visitor, a guest of that org that is no member and expires when idle.
 */

/** How many expired visitors a new visitor's session deletes: the org's cleanup, a little at a time. */
const EXPIRED_VISITORS_PER_SESSION = 20;

/** The widget key a browser sent (revoked ones too: the caller tells them apart after the Origin check). */
export async function widgetKeyOf(db: ApiDeps['db'], widgetKey: string) {
  if (!widgetKey.startsWith(WIDGET_KEY_PREFIX)) throw unauthenticated('Not a widget key');
  const key = await findWidgetKeyByHash(db, hashApiKey(widgetKey));
  if (!key) throw unauthenticated('Unknown widget key');
  return key;
}

/** The key a visitor token was issued for, with its agent (null when it was deleted). */
export function widgetKeyWithAgent(db: ApiDeps['db'], keyId: string) {
  return findWidgetKeyWithAgent(db, keyId);
}

/** Whether some unrevoked widget key lists `origin` (a CORS preflight carries no key to check against). */
export function someWidgetKeyAllows(db: ApiDeps['db'], origin: string): Promise<boolean> {
  return someActiveWidgetKeyAllows(db, origin);
}

/**
 * The returning visitor when `returning` (a verified visitor token's claims) names an unexpired
 * visitor of this key (its expiry moves on), else a new visitor of the key's org.
 */
export async function visitorFor(
  deps: Pick<ApiDeps, 'db' | 'config'>,
  key: { id: string; orgId: string },
  returning: { userId: string; widget: { keyId: string } } | null,
): Promise<string> {
  const expiresAt = new Date(Date.now() + deps.config.widget.visitorDays * 86_400_000);
  if (
    returning &&
    returning.widget.keyId === key.id &&
    (await renewVisitor(deps.db, { id: returning.userId, orgId: key.orgId, keyId: key.id, expiresAt }))
  )
    return returning.userId;
  await deleteExpiredVisitors(deps.db, key.orgId, EXPIRED_VISITORS_PER_SESSION);
  const id = newId('usr');
  await insertVisitor(deps.db, { id, orgId: key.orgId, keyId: key.id, expiresAt });
  return id;
}
