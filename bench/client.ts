import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Who the bench calls as: the tenant owner's JWT and the agent to run. */
export interface BenchCaller {
  apiUrl: string;
  token: string;
  agentId: string;
}

export async function exchangeKey(apiUrl: string, apiKey: string): Promise<string> {
  const res = await fetch(`${apiUrl}/api/v1/auth/exchange/agent-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (res.status !== 200) throw new Error(`key exchange failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export function request(
  who: BenchCaller,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${who.apiUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
}

export interface TimedFrame {
  type: string;
  /** The SSE `id:` (`<run_id>:<seq>`); absent on HEARTBEAT frames. */
  id?: string;
  /** The event's own `timestamp`: when it was stored (its created_at), in epoch ms. */
  timestamp: number;
  /** When the bench parsed the frame, in epoch ms (Date.now(), same clock as the server's). */
  receivedAt: number;
  /** performance.now() at receipt, for intervals measured inside the bench process. */
  receivedPerf: number;
}

/**
 * Reads an SSE body to its end, stamping every frame with its arrival time.
 * Throws if the stream ends without a terminal event.
 */
export async function readTimedSse(res: Response): Promise<TimedFrame[]> {
  if (res.status !== 200 || !res.body) throw new Error(`expected an SSE stream, got ${res.status} ${await res.text()}`);
  const frames: TimedFrame[] = [];
  const parser = createParser({
    onEvent(msg: EventSourceMessage) {
      const data = JSON.parse(msg.data) as { type: string; timestamp: number };
      frames.push({
        type: data.type,
        id: msg.id,
        timestamp: data.timestamp,
        receivedAt: Date.now(),
        receivedPerf: performance.now(),
      });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  const last = frames.at(-1)?.type;
  if (last !== 'RUN_FINISHED' && last !== 'RUN_ERROR') throw new Error(`stream ended after ${last ?? 'nothing'}`);
  if (last === 'RUN_ERROR') throw new Error('a benchmark run failed with RUN_ERROR');
  return frames;
}
