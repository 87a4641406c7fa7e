import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeResponse } from './fake-openai.ts';

/** Token counts a fake provider reports for every answer. */
export interface FakeUsage {
  input: number;
  output: number;
}

export interface FakeProviderOptions {
  /** The answer's text chunks, for requests no entry of `responses` scripts. */
  chunks: string[];
  /** Answers to successive requests (text chunks, then tool calls); after the last, `chunks` is used. */
  responses?: FakeResponse[];
  usage?: FakeUsage;
  /** Answer every request with this HTTP status and the provider's error body instead of a stream. */
  failWith?: number;
  /** A careless gateway: the error message repeats the key the request carried. */
  echoKeyInError?: boolean;
}

export interface FakeProvider {
  /** Ends in `/v1`, as the providers' own base URLs do. */
  baseUrl: string;
  /** Bodies of the requests received, in order. */
  requests: Record<string, unknown>[];
  /** Their headers (lower-case names), in the same order. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** One server-sent event: the `event:` name and its JSON `data:`. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** What a fake provider differs in: its one endpoint, its event stream, and its error body. */
export interface ProviderDialect {
  path: string;
  /** The whole event stream for one answer; `requestNo` counts from 1 and keeps ids unique. */
  events(answer: Required<Pick<FakeResponse, 'chunks' | 'toolCalls'>>, usage: FakeUsage, requestNo: number): SseEvent[];
  /** `echoedKey`: the key to repeat in the message (see `echoKeyInError`). */
  errorBody(status: number, echoedKey: string | undefined): Record<string, unknown>;
}

/** A stand-in for a model provider's streaming endpoint (the edge we do not own), on a free local port. */
export async function startFakeProvider(dialect: ProviderDialect, opts: FakeProviderOptions): Promise<FakeProvider> {
  const requests: Record<string, unknown>[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== dialect.path) {
      res.writeHead(404).end();
      return;
    }
    requests.push(JSON.parse(await readBody(req)) as Record<string, unknown>);
    headers.push(req.headers);
    if (opts.failWith) {
      const sentKey =
        (req.headers['x-api-key'] as string | undefined) ?? req.headers.authorization?.replace(/^Bearer /, '');
      const body = dialect.errorBody(opts.failWith, opts.echoKeyInError ? sentKey : undefined);
      res.writeHead(opts.failWith, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const scripted = opts.responses?.[requests.length - 1];
    const answer = { chunks: scripted?.chunks ?? (scripted ? [] : opts.chunks), toolCalls: scripted?.toolCalls ?? [] };
    const usage = opts.usage ?? { input: 11, output: answer.chunks.length };
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    for (const e of dialect.events(answer, usage, requests.length))
      res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let data = '';
  for await (const chunk of req) data += String(chunk);
  return data;
}

/** A JSON string cut in two, as providers stream arguments in pieces. */
export function halves(text: string): string[] {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter(Boolean);
}
