import { z } from 'zod';

/**
 * The `cursor` of GET /api/runs/{run_id}/events: base64url of `{"r": run_id, "s": last_seq}`.
 * Clients treat it as opaque. It is not signed: a hand-made cursor can only
 * point at another position of a run the caller may already read, so it grants nothing.
 */
export interface EventCursor {
  runId: string;
  /** The last seq the client has received; the next page starts after it. */
  seq: number;
}

const cursorJson = z.strictObject({ r: z.string().min(1), s: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

export function encodeCursor({ runId, seq }: EventCursor): string {
  return Buffer.from(JSON.stringify({ r: runId, s: seq })).toString('base64url');
}

/** The cursor's position, or undefined when the text is not a cursor we could have issued. */
export function decodeCursor(value: string): EventCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(value)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = cursorJson.safeParse(json);
  return parsed.success ? { runId: parsed.data.r, seq: parsed.data.s } : undefined;
}
