/**
 * The id of a stored event, used as the SSE `id:` and the record `id`:
 * `<run_id>:<seq>`. Clients treat it as opaque; `Last-Event-ID` hands it back.
 */
export function eventId(runId: string, seq: number): string {
  return `${runId}:${seq}`;
}

export function parseEventId(value: string): { runId: string; seq: number } | undefined {
  const at = value.lastIndexOf(':');
  if (at <= 0) return undefined;
  const seq = Number(value.slice(at + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { runId: value.slice(0, at), seq };
}
