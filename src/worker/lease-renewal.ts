import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { renewHostLeases } from '../db/sandbox-leases.ts';

/**
 * The host's heartbeat: renews every sandbox lease it holds, three times per lease period,
 * so one missed beat (a slow database) does not move its sandboxes. A dead host stops
 * renewing, and its sandboxes go to another host once their leases lapse.
 */
export function startLeaseRenewal(db: Db, hostId: string, leaseSeconds: number, logger: Logger): { stop(): void } {
  const timer = setInterval(
    () => {
      renewHostLeases(db, hostId, leaseSeconds).catch((err: unknown) =>
        logger.warn({ err: String(err), hostId }, 'sandbox leases not renewed'),
      );
    },
    (leaseSeconds * 1000) / 3,
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
