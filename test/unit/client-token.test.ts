import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenSource } from '../../packages/client/src/auth.ts';
import type { TokenExchangeResponse } from '../../packages/client/src/types.ts';

/** The SDK's token cache: one exchange shared by concurrent callers, renewed before expiry, forgotten after a 401. */
function issued(token: string, lifetimeSeconds: number): TokenExchangeResponse {
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: lifetimeSeconds,
    expires_at: new Date(Date.now() + lifetimeSeconds * 1000).toISOString(),
    org_id: 'o',
    user_id: 'u',
    role: 'owner',
  };
}

afterEach(() => void vi.useRealTimers());

describe('TokenSource', () => {
  it('exchanges once for concurrent callers and renews a minute before expiry', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    let n = 0;
    const source = new TokenSource(async () => issued(`t${++n}`, 3600), undefined);
    expect(await Promise.all([source.token(), source.token(), source.token()])).toEqual(['t1', 't1', 't1']);
    vi.setSystemTime(new Date('2026-01-01T00:58:59Z'));
    expect(await source.token()).toBe('t1');
    vi.setSystemTime(new Date('2026-01-01T00:59:01Z'));
    expect(await source.token()).toBe('t2');
    expect(n).toBe(2);
  });

  it('forgets a refused token, but not one another caller already replaced', async () => {
    let n = 0;
    const source = new TokenSource(async () => issued(`t${++n}`, 3600), 'given');
    expect(await source.token()).toBe('given');
    source.invalidate('given');
    expect(await source.token()).toBe('t1');
    source.invalidate('given'); // a late 401 of the old token
    expect(await source.token()).toBe('t1');
    expect(n).toBe(1);
  });

  it('keeps a bare token (no key to exchange)', async () => {
    const source = new TokenSource(undefined, 'given');
    source.invalidate('given');
    expect(await source.token()).toBe('given');
    expect(source.canRenew).toBe(false);
  });
});
