import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectToolServer } from '../../src/activities/mcp/connect.ts';
import { SessionPool } from '../../src/activities/mcp/session-pool.ts';
import { eventually } from '../support/eventually.ts';

/** A stateful MCP server of the SDK on loopback that logs each request's method and can forget its sessions (a restart). */
let http: Server;
let url: string;
const transports = new Map<string, StreamableHTTPServerTransport>();
const seen: string[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => void handle(req, body ? JSON.parse(body) : undefined, res));
  });
  const handle = async (req: IncomingMessage, body: unknown, res: ServerResponse) => {
    seen.push(req.method === 'POST' ? String((body as { method?: string }).method) : req.method!);
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id ? transports.get(id) : undefined;
    if (!transport && !id) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void transports.set(sid, created),
      });
      const server = new McpServer({ name: 'pool-test', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { message: z.string() } }, ({ message }) => ({
        content: [{ type: 'text', text: message }],
      }));
      await server.connect(created);
      transport = created;
    }
    if (!transport) return void res.writeHead(404).end('session not found');
    await transport.handleRequest(req, res, body);
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

const connect = () =>
  connectToolServer(url, { headers: {}, fetch, signal: new AbortController().signal, timeoutMs: 5000 });
const echo = (pool: SessionPool, key: string, message: string) =>
  pool.use(
    key,
    connect,
    async (s) => ((await s.client.callTool({ name: 'echo', arguments: { message } })) as CallToolResult).content,
  );
const count = (method: string) => seen.filter((m) => m === method).length;

describe("a run's tool-server sessions, kept on the worker", () => {
  it("serves a run's calls on one session, opens another for another run, and replaces one the server forgot", async () => {
    const pool = new SessionPool(60_000);
    const initialized = count('initialize');
    expect(await echo(pool, 'run-a', 'one')).toEqual([{ type: 'text', text: 'one' }]);
    expect(await echo(pool, 'run-a', 'two')).toEqual([{ type: 'text', text: 'two' }]);
    expect(count('initialize') - initialized).toBe(1);
    await echo(pool, 'run-b', 'three');
    expect(count('initialize') - initialized).toBe(2);

    transports.clear(); // the server restarted: it answers 404 to the sessions it had
    expect(await echo(pool, 'run-a', 'four')).toEqual([{ type: 'text', text: 'four' }]);
    expect(count('initialize') - initialized).toBe(3);
    await pool.closeAll();
  });

  it('ends a session no call used for a while, on the server too', async () => {
    const pool = new SessionPool(200);
    const deleted = count('DELETE');
    await echo(pool, 'run-c', 'hi');
    await eventually('the idle session to be ended', () => expect(count('DELETE')).toBe(deleted + 1));
  });

  it('keeps at most its total of idle sessions across runs, ending the oldest', async () => {
    const pool = new SessionPool(60_000, 4, 2);
    const deleted = count('DELETE');
    for (const run of ['run-e', 'run-f', 'run-g']) await echo(pool, run, 'hi');
    expect(pool.size).toBe(2);
    await eventually('the oldest idle session to be ended', () => expect(count('DELETE')).toBe(deleted + 1));
    const initialized = count('initialize');
    await echo(pool, 'run-g', 'again'); // the newest was kept
    expect(count('initialize')).toBe(initialized);
    await pool.closeAll();
  });

  it('never keeps a session whose call failed', async () => {
    const pool = new SessionPool(60_000);
    const initialized = count('initialize');
    await expect(pool.use('run-d', connect, () => Promise.reject(new Error('the call failed')))).rejects.toThrow(
      'the call failed',
    );
    await echo(pool, 'run-d', 'again');
    expect(count('initialize') - initialized).toBe(2);
    await pool.closeAll();
  });
});
