import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request: pass it on, answer it with an error status itself, reset the
 * connection without an answer, or pass it on and then cut the connection before the client sees
 * the answer (the server did the work; the client cannot know).
 */
export type Fault = 'forward' | 'reset' | 'lose-response' | { status: number; retryAfterSeconds?: number };

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  fault: Fault;
  at: number;
  /** The upstream's answer, for forwarded requests. */
  status?: number;
  upstreamHeaders?: IncomingHttpHeaders;
}

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** An HTTP proxy in front of a real api that injects faults into requests as `plan` decides (n counts from 0). */
export async function startFaultProxy(
  target: string,
  plan: (req: IncomingMessage, n: number) => Fault,
): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const fault = plan(req, requests.length);
    const entry: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', target).pathname,
      headers: req.headers,
      fault,
      at: Date.now(),
    };
    requests.push(entry);
    if (fault === 'reset') return void req.socket.destroy();
    if (typeof fault === 'object') {
      const retryAfter =
        fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      res.writeHead(fault.status, { 'content-type': 'application/json', ...retryAfter });
      return void res.end(JSON.stringify({ detail: `injected ${fault.status}` }));
    }
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        entry.status = answer.statusCode;
        entry.upstreamHeaders = answer.headers;
        if (fault === 'lose-response') {
          answer.destroy();
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
