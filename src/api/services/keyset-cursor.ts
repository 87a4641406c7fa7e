import { z } from 'zod';
import { invalidValue } from '../errors.ts';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../opaque-cursor.ts';

/**
 * The opaque `cursor` of newest-first lists (memories, artifacts): base64url of
 * `{"s": scope, "t": created_at in ms, "i": id}`, the last item of the previous
 * page. `scope` (the agent or task listed) stops a cursor from being replayed
 * on another list, so a hand-made one can only point into a list the caller may already read.
 */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

const cursorJson = z.strictObject({ s: z.string().min(1), t: z.number().int().min(0).max(8.64e15), i: z.string().min(1).max(200) });

export function encodeKeysetCursor(scope: string, last: KeysetPosition): string {
  return encodeOpaqueCursor({ s: scope, t: last.createdAt.getTime(), i: last.id });
}

const badCursor = (msg: string) => invalidValue(['query', 'cursor'], msg);

/** The position a cursor stands for, or the spec's 422 when it is not one we issued for this list. */
export function decodeKeysetCursor(scope: string, value: string): KeysetPosition {
  const json = decodeOpaqueCursor(value, cursorJson, 1024);
  if (!json) throw badCursor('Not a cursor issued by this API: pass `next_cursor` from the previous page unchanged');
  if (json.s !== scope) throw badCursor('This cursor belongs to another list');
  return { createdAt: new Date(json.t), id: json.i };
}

/** Splits the `limit + 1` rows a page query fetched into the page and the cursor of what follows (null at the end). */
export function keysetPage<T>(scope: string, rows: T[], limit: number, positionOf: (row: T) => KeysetPosition): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeKeysetCursor(scope, positionOf(items.at(-1)!)) : null };
}
