import { describe, expect, it } from 'vitest';
import { creditOutlook } from '../../src/shared/credit-outlook.ts';

const now = new Date('2026-11-27T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);

describe('creditOutlook', () => {
  it('spreads the last 7 days of use over 7 days for an older org', () => {
    expect(creditOutlook(700n, 70, daysAgo(30), now)).toEqual({
      balance: '700',
      daily_rate: 10,
      days_left: 70,
      low: false,
      warning: null,
    });
  });

  it("spreads a young org's use over its age, at least one day", () => {
    expect(creditOutlook(100n, 60, daysAgo(2), now)).toMatchObject({ daily_rate: 30, days_left: 3.3, low: false });
    expect(creditOutlook(100n, 60, daysAgo(0.1), now)).toMatchObject({ daily_rate: 60, days_left: 1.6, low: true });
  });

  it('is low under 3 days of credits, and out at 0 or below', () => {
    const low = creditOutlook(29n, 70, daysAgo(30), now);
    expect(low).toMatchObject({ days_left: 2.9, low: true });
    expect(low.warning).toBe("Credits are running low: 29 left, about 2.9 days at the last 7 days' rate of 10 a day.");
    expect(creditOutlook(30n, 70, daysAgo(30), now)).toMatchObject({ days_left: 3, low: false });
    expect(creditOutlook(0n, 0, daysAgo(30), now)).toMatchObject({ days_left: null, low: true });
    expect(creditOutlook(-5n, 70, daysAgo(30), now).warning).toMatch(/^No credits left/);
  });

  it('is never low for an org that used nothing lately and has credits', () => {
    expect(creditOutlook(1n, 0, daysAgo(30), now)).toMatchObject({ daily_rate: 0, days_left: null, low: false });
  });
});
