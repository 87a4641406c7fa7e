import type { Response } from 'express';
import { tooManyRequests } from '../errors.ts';
import type { Caller } from '../../auth/caller.ts';
import { openStreams, rateLimitRejections } from '../metrics.ts';

/** What a refused stream is told to wait before reconnecting. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/**
 * Caps on concurrently open SSE streams, counted in this api process: per org and user
 * (one client cannot hold every connection) and in all (the process keeps room for the
 * rest of its work). A stream holds its slot until its response closes.
 */
export class StreamSlots {
  private readonly perUser = new Map<string, number>();
  /** Widget visitors are new users at will: their streams also count per widget key. */
  private readonly perWidgetKey = new Map<string, number>();
  private total = 0;

  constructor(readonly limits: { perUser: number; perProcess: number; perWidgetKey: number }) {}

  get open(): number {
    return this.total;
  }

  /** Takes a slot for `res`, or throws 429 with Retry-After before anything is started or sent. Idempotent per response. */
  hold(res: Response, caller: Pick<Caller, 'orgId' | 'userId' | 'widgetKeyId'>): void {
    if (res.locals.streamSlot) return;
    const key = `${caller.orgId}:${caller.userId}`;
    const mine = this.perUser.get(key) ?? 0;
    const widgetKey = caller.widgetKeyId;
    const ofKey = widgetKey === undefined ? 0 : (this.perWidgetKey.get(widgetKey) ?? 0);
    if (this.total >= this.limits.perProcess) {
      rateLimitRejections.inc({ class: 'streams_per_process' });
      throw tooManyRequests(
        `This api process has ${this.total} open streams, its limit; retry in ${STREAM_RETRY_AFTER_SECONDS} s`,
        STREAM_RETRY_AFTER_SECONDS,
      );
    }
    if (mine >= this.limits.perUser) {
      rateLimitRejections.inc({ class: 'streams_per_user' });
      throw tooManyRequests(
        `You have ${mine} streams open, the limit per user; close one or retry in ${STREAM_RETRY_AFTER_SECONDS} s`,
        STREAM_RETRY_AFTER_SECONDS,
      );
    }
    if (widgetKey !== undefined && ofKey >= this.limits.perWidgetKey) {
      rateLimitRejections.inc({ class: 'streams_per_widget_key' });
      throw tooManyRequests(
        `This widget key has ${ofKey} streams open, its limit; retry in ${STREAM_RETRY_AFTER_SECONDS} s`,
        STREAM_RETRY_AFTER_SECONDS,
      );
    }
    this.total++;
    openStreams.inc();
    this.perUser.set(key, mine + 1);
    if (widgetKey !== undefined) this.perWidgetKey.set(widgetKey, ofKey + 1);
    res.locals.streamSlot = true;
    res.once('close', () => {
      this.total--;
      openStreams.dec();
      release(this.perUser, key);
      if (widgetKey !== undefined) release(this.perWidgetKey, widgetKey);
    });
  }
}

function release(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
