import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { inject } from 'vitest';

export const apiUrl = () => inject('apiUrl');

export async function exchange(apiKey: string): Promise<string> {
  const res = await fetch(`${apiUrl()}/api/v1/auth/exchange/agent-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface CallOptions {
  token?: string;
  agentId?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Like `call`, but waits out a 429 as the spec tells clients to (Retry-After seconds), so tests
 * that poll can share a user's rate-limit budget with other tests.
 */
export async function politeCall(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
  for (;;) {
    const res = await call(method, path, opts);
    if (res.status !== 429) return res;
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
  }
}

export function call(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.agentId) headers['X-Agent-Id'] = opts.agentId;
  if (opts.body !== undefined || opts.rawBody !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${apiUrl()}${path}`, {
    method,
    headers,
    body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    signal: opts.signal,
  });
}

export interface SseFrame {
  id?: string;
  data: Record<string, unknown> & { type: string };
}

/** Reads an SSE response to its end with eventsource-parser; frames in arrival order. */
export async function readSse(res: Response, onFrame?: (f: SseFrame) => void): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const parser = createParser({
    onEvent(msg: EventSourceMessage) {
      const frame = { id: msg.id, data: JSON.parse(msg.data) as SseFrame['data'] };
      frames.push(frame);
      onFrame?.(frame);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  return frames;
}

/** The stored events of a stream: everything but HEARTBEAT frames. */
export const withoutHeartbeats = (frames: SseFrame[]) => frames.filter((f) => f.data.type !== 'HEARTBEAT');

export const userMessage = (content: string) => ({ messages: [{ role: 'user', content }] });
