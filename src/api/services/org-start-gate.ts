import pLimit, { type LimitFunction } from 'p-limit';

/**
 * Run starts in flight per org in this api process. A start's work (its transaction, then the
 * workflow's start in Temporal) waits here behind the same org's starts, oldest first, while
 * another org's start goes straight on: without it one org's hundreds of POSTs in flight fill the
 * process's database pool and every other org's start waits behind them. Not a queue of runs: each
 * start still completes within its request; past the start, Temporal's fairness keys take over.
 * A run-start request passes it twice, never holding both: while it is authenticated (hold: the
 * caller's and rate limit's reads, route.ts) and while it starts the run (run).
 */
export class OrgStartGate {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(private readonly perOrg: number) {}

  async run<T>(orgId: string, start: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(orgId);
    if (!limit) {
      limit = pLimit(this.perOrg);
      this.limits.set(orgId, limit);
    }
    try {
      return await limit(start);
    } finally {
      // An org with nothing in flight leaves no entry behind.
      if (limit.activeCount === 0 && limit.pendingCount === 0 && this.limits.get(orgId) === limit)
        this.limits.delete(orgId);
    }
  }

  /** Takes one of the org's places until the returned release is called (again: nothing). */
  hold(orgId: string): Promise<() => void> {
    return new Promise((held) => void this.run(orgId, () => new Promise<void>((release) => held(() => release()))));
  }
}
