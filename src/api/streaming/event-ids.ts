/**
 * The id of a stored event, used as the SSE `id:` and the record `id`:
 * `<run_id>:<seq>`. Clients treat it as opaque; `Last-Event-ID` hands it back.
 */
export function eventId(runId: string, seq: number): string {
  return `${runId}:${seq}`;
}

/** Matches what parseEventId takes (the empty string meaning "no resume"), for the documented schema. */
export const EVENT_ID_PATTERN = '^$|^[^:]+:[0-9]{1,15}$';

export function parseEventId(value: string): { runId: string; seq: number } | undefined {
  const at = value.lastIndexOf(':');
  if (at <= 0) return undefined;
  const digits = value.slice(at + 1);
  if (!/^[0-9]{1,15}$/.test(digits)) return undefined;
  const seq = Number(digits);
  return { runId: value.slice(0, at), seq };
}
