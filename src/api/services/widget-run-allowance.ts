import type { Caller } from '../../auth/caller.ts';
import { widgetKeyCreditsToday } from '../../db/widget-keys.ts';
import { paymentRequired } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';

/**
 * What a widget run start costs its key, before anything is stored: one of the key's runs a
 * window (all its visitors together) and room in its daily credit budget. The org is charged only
 * within that budget; the last run started under it may go past it by its own usage.
 */
export async function requireWidgetRunAllowance(
  deps: Pick<ApiDeps, 'db' | 'rateLimits' | 'config'>,
  caller: Caller,
): Promise<void> {
  const keyId = caller.widgetKeyId;
  if (keyId === undefined) return;
  await deps.rateLimits.consumeBudget('widget-key-runs', keyId);
  const { used, budget } = await widgetKeyCreditsToday(deps.db, keyId, deps.config.widget.keyCreditsPerDay);
  if (used >= budget)
    throw paymentRequired(`This chat has used its ${budget} credits for today; try again tomorrow (UTC)`);
}
