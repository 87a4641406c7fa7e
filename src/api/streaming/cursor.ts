import { z } from 'zod';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../opaque-cursor.ts';

/**
 * The `cursor` of GET /api/runs/{run_id}/events: base64url of `{"r": run_id, "s": last_seq}`.
 * It can only point at another position of a run the caller may already read, so it grants nothing.
 */
export interface EventCursor {
  runId: string;
  /** The last seq the client has received; the next page starts after it. */
  seq: number;
}

const cursorJson = z.strictObject({ r: z.string().min(1), s: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

export function encodeCursor({ runId, seq }: EventCursor): string {
  return encodeOpaqueCursor({ r: runId, s: seq });
}

/** The cursor's position, or undefined when the text is not a cursor we could have issued. */
export function decodeCursor(value: string): EventCursor | undefined {
  const json = decodeOpaqueCursor(value, cursorJson, 512);
  return json && { runId: json.r, seq: json.s };
}
