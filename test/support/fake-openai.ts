import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAiOptions {
  /** The answer, streamed one chunk per element. */
  chunks: string[];
  /** Pause before each chunk. */
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Answer every request with this HTTP status instead of a stream. */
  failWith?: number;
}

export interface FakeOpenAi {
  baseUrl: string;
  /** Bodies of the chat completion requests received, in order. */
  requests: Record<string, unknown>[];
  /** Authorization headers received. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A stand-in for an OpenAI-compatible server (the edge we do not own):
 * `POST /v1/chat/completions` with `stream: true`, answered as SSE chunks
 * the way OpenAI, vLLM and Ollama send them.
 */
export async function startFakeOpenAi(opts: FakeOpenAiOptions): Promise<FakeOpenAi> {
  const requests: Record<string, unknown>[] = [];
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    requests.push(JSON.parse(await body(req)) as Record<string, unknown>);
    authorizations.push(req.headers.authorization);
    if (opts.failWith) {
      res.writeHead(opts.failWith, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: 'fake failure', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (const text of opts.chunks) {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (res.destroyed) return;
      res.write(chunk({ content: text }));
    }
    const usage = opts.usage ?? { prompt_tokens: 11, completion_tokens: opts.chunks.length };
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function body(req: IncomingMessage): Promise<string> {
  let data = '';
  for await (const chunk of req) data += String(chunk);
  return data;
}
