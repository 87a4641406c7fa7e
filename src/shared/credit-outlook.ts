/** The recent daily rate is the credits of the runs of the last RECENT_DAYS days (fewer for a younger org), a day. */
export const RECENT_DAYS = 7;
/** Credits are low when they last fewer than LOW_DAYS days at the recent rate (or are used up). */
export const LOW_DAYS = 3;

const DAY_MS = 86_400_000;

export interface CreditOutlook {
  balance: string;
  /** Credits a day over the last RECENT_DAYS days (two decimals). */
  daily_rate: number;
  /** How long the balance lasts at that rate (days, one decimal); null when nothing was used lately. */
  days_left: number | null;
  low: boolean;
  /** Why credits are low, in a sentence for the console's banner; null when they are not. */
  warning: string | null;
}

/**
 * How long an org's credits last: `usedRecently` is what its runs of the last RECENT_DAYS days cost,
 * spread over those days (or over the org's age, at least one day, when it is younger), so one
 * busy first day does not look like a week's use.
 */
export function creditOutlook(balance: bigint, usedRecently: number, orgCreatedAt: Date, now: Date): CreditOutlook {
  const days = Math.min(RECENT_DAYS, Math.max(1, (now.getTime() - orgCreatedAt.getTime()) / DAY_MS));
  const rate = usedRecently / days;
  const left = rate > 0 ? Number(balance) / rate : null;
  const base = {
    balance: balance.toString(),
    daily_rate: Math.round(rate * 100) / 100,
    days_left: left === null ? null : Math.max(0, Math.floor(left * 10) / 10),
  };
  if (balance <= 0n)
    return { ...base, low: true, warning: 'No credits left: new runs are refused (402) until credits are added.' };
  if (left !== null && left < LOW_DAYS)
    return {
      ...base,
      low: true,
      warning:
        `Credits are running low: ${balance} left, about ${base.days_left} days at the last ` +
        `${RECENT_DAYS} days' rate of ${base.daily_rate} a day.`,
    };
  return { ...base, low: false, warning: null };
}
