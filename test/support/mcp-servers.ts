import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import { freeListenPort } from './ports.ts';
import { temporalClient } from './runs.ts';

/** The MCP project's own test server, a third party to us, on a loopback port: Streamable HTTP, or the older HTTP+SSE. */
export async function startEverythingServer(
  transport: 'streamableHttp' | 'sse',
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freeListenPort();
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const child = spawn(process.execPath, [entry, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes(`listening on port ${port}`) || output.includes(`running on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, child };
}

/**
 * Forwards to `target`, keeping each request's Authorization header and JSON-RPC method (what the
 * worker sent the server); answers 503 instead to the next `failToolCalls` tools/call requests.
 */
export async function startRecordingProxy(target: string) {
  const proxy = {
    url: '',
    seen: [] as string[],
    methods: [] as string[],
    failToolCalls: 0,
    server: http.createServer(),
  };
  const to = new URL(target);
  proxy.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = body.length ? String((JSON.parse(body.toString()) as { method?: string }).method) : req.method!;
      proxy.seen.push(String(req.headers.authorization));
      proxy.methods.push(method);
      if (method === 'tools/call' && proxy.failToolCalls > 0) {
        proxy.failToolCalls--;
        return void res.writeHead(503).end('overloaded');
      }
      const upstream = http.request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          // A server that dies mid-answer resets the worker's connection too, as it would without the proxy.
          answer.once('close', () => answer.complete || res.destroy());
        },
      );
      upstream.once('error', () => res.destroy());
      upstream.end(body);
    });
  });
  const port = await freeListenPort();
  await new Promise<void>((resolve) => proxy.server.listen(port, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${port}/mcp`;
  return proxy;
}

/** A run's Temporal history with its payloads decoded: what a replay reads, and what must hold no secret. */
export async function historyText(runId: string): Promise<string> {
  const history = await (await temporalClient()).workflow.getHandle(runId).fetchHistory();
  return JSON.stringify(history.events, (key, value: unknown) =>
    key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
  );
}
