import { z } from 'zod';
import { invalidField } from '../shared/domain-error.ts';

/*
 * Every cursor the API issues: one opaque codec (base64url of a small JSON object), and the two
 * kinds built on it: a run's event position and a newest-first list's keyset position.
 */
/**
 * The one codec of the API's opaque cursors: base64url of a small JSON object.
 * Clients treat them as opaque. They are not signed: each kind's schema and
 * scope check see to it that a hand-made cursor can only point at another
 * position of something the caller may already read.
 */
export function encodeOpaqueCursor(json: object): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

/** The cursor's JSON as `schema` reads it, or undefined when the text is not a cursor we could have issued. */
export function decodeOpaqueCursor<S extends z.ZodType>(
  value: string,
  schema: S,
  maxLength: number,
): z.infer<S> | undefined {
  if (value.length === 0 || value.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The `cursor` of GET /api/runs/{run_id}/events: base64url of `{"r": run_id, "s": last_seq}`.
 * It can only point at another position of a run the caller may already read, so it grants nothing.
 */
export interface EventCursor {
  runId: string;
  /** The last seq the client has received; the next page starts after it. */
  seq: number;
}

const eventCursorJson = z.strictObject({
  r: z.string().min(1),
  s: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

export function encodeCursor({ runId, seq }: EventCursor): string {
  return encodeOpaqueCursor({ r: runId, s: seq });
}

/** The cursor's position, or undefined when the text is not a cursor we could have issued. */
export function decodeCursor(value: string): EventCursor | undefined {
  const json = decodeOpaqueCursor(value, eventCursorJson, 512);
  return json && { runId: json.r, seq: json.s };
}

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

const keysetCursorJson = z.strictObject({
  s: z.string().min(1),
  t: z.number().int().min(0).max(8.64e15),
  i: z.string().min(1).max(200),
});

export function encodeKeysetCursor(scope: string, last: KeysetPosition): string {
  return encodeOpaqueCursor({ s: scope, t: last.createdAt.getTime(), i: last.id });
}

const badCursor = (msg: string) => invalidField(['query', 'cursor'], msg);

/** The position a cursor stands for; a cursor we did not issue for this list is an invalid field (422). */
export function decodeKeysetCursor(scope: string, value: string): KeysetPosition {
  const json = decodeOpaqueCursor(value, keysetCursorJson, 1024);
  if (!json) throw badCursor('Not a cursor issued by this API: pass `next_cursor` from the previous page unchanged');
  if (json.s !== scope) throw badCursor('This cursor belongs to another list');
  return { createdAt: new Date(json.t), id: json.i };
}

/** Splits the `limit + 1` rows a page query fetched into the page and the cursor of what follows (null at the end). */
export function keysetPage<T>(
  scope: string,
  rows: T[],
  limit: number,
  positionOf: (row: T) => KeysetPosition,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeKeysetCursor(scope, positionOf(items.at(-1)!)) : null };
}
