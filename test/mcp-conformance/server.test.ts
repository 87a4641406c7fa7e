import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../support/http.ts';
import { createTenant } from '../support/tenant.ts';
import { runConformanceSuite } from './suite.ts';

/**
 * The MCP project's conformance suite (`@modelcontextprotocol/conformance`), server scenarios that
 * apply to an agent server, against our /mcp. The suite sends no credentials (and has no option for
 * headers), so it talks to a loopback proxy that adds a member's API key as the bearer and passes
 * everything else through unchanged: Host and Origin as the suite sent them (dns-rebinding-protection
 * tests our guard), streaming bodies as they come.
 */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/**
 * Warnings of server-sse-polling that are not ours to fix: it calls a `test_reconnection` tool (a test
 * server's; ours answers "unknown tool") and sends `mcp-protocol-version: 2025-03-26` on that POST,
 * so the SDK rightly sends no priming event (empty data is 2025-11-25) nor retry field, and its GET
 * with the error's event id gets that request's error, no result. Sessions of 2025-11-25 clients get
 * both (the last test here).
 */
const EXPECTED_WARNINGS: Record<string, string[]> = {
  'server-sse-polling': ['server-sse-priming-event', 'server-sse-retry-field', 'server-sse-disconnect-resume'],
};

const output = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-server-'));
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  const tenant = await createTenant({ description: 'Answers questions for the conformance suite' });
  const upstream = new URL(apiUrl());
  proxy = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${tenant.keys.member}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.once('error', () => res.destroy());
    res.once('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  rmSync(output, { recursive: true, force: true });
});

/** Two suite processes at a time: the CI machine has two cores, shared with the other test files. */
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runScenario(scenario: string) {
  const dir = path.join(output, scenario);
  return runConformanceSuite(['server', '--url', proxyUrl, '--scenario', scenario, '-o', dir], dir);
}

describe('the MCP conformance suite, server scenarios, against /mcp', () => {
  it.concurrent.each(SCENARIOS)('%s', async (scenario) => {
    const { code, log, checks } = await limited(() => runScenario(scenario));
    expect(code, log).toBe(0);
    expect(checks.filter((c) => c.status === 'FAILURE')).toEqual([]);
    const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => c.id);
    expect(warnings, log).toEqual(EXPECTED_WARNINGS[scenario] ?? []);
    if (scenario !== 'server-sse-polling')
      expect(
        checks.some((c) => c.status === 'SUCCESS'),
        log,
      ).toBe(true);
  });
});

it('primes a 2025-11-25 POST stream with an event id and the retry field before its response', async () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(proxyUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  const clientInfo = { name: 'priming-check', version: '1.0.0' };
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  const ping = await (await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, headers)).text();
  expect(ping).toMatch(
    /^id: \S+\nretry: 1000\ndata: \n\n(event: message\n)?id: \S+\ndata: \{"result":\{\},"jsonrpc":"2.0","id":1\}/,
  );
});
