import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: text chunks, then tool calls (streamed as OpenAI does). */
export interface FakeResponse {
  chunks?: string[];
  toolCalls?: { name: string; args: unknown }[];
  delayMs?: number;
}

export interface FakeOpenAiOptions {
  /** The answer, streamed one chunk per element. */
  chunks: string[];
  /** Answers to successive requests; after the last, `chunks` is used. */
  responses?: FakeResponse[];
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
  /** How many streams the client closed before their end (an aborted model call). */
  aborted: number;
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
    const scripted = opts.responses?.[requests.length - 1];
    const chunks = scripted?.chunks ?? (scripted ? [] : opts.chunks);
    const delayMs = scripted?.delayMs ?? opts.delayMs;
    let finished = false;
    res.on('close', () => {
      if (!finished) fake.aborted++;
    });
    authorizations.push(req.headers.authorization);
    if (opts.failWith) {
      res
        .writeHead(opts.failWith, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'fake failure', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (const text of chunks) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (res.destroyed) return;
      res.write(chunk({ content: text }));
    }
    for (const [index, call] of (scripted?.toolCalls ?? []).entries()) {
      const id = `call_${requests.length}_${index}`;
      const args = JSON.stringify(call.args);
      res.write(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
    }
    const finishReason = scripted?.toolCalls?.length ? 'tool_calls' : 'stop';
    const usage = opts.usage ?? { prompt_tokens: 11, completion_tokens: chunks.length };
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta: {}, finish_reason: finishReason }] })}\n\n`,
    );
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
    );
    finished = true;
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeOpenAi = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    aborted: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

async function body(req: IncomingMessage): Promise<string> {
  let data = '';
  for await (const chunk of req) data += String(chunk);
  return data;
}
