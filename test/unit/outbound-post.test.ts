import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/outbound/address-guard.ts';
import { postOutbound, RefusedTargetError } from '../../src/outbound/post.ts';

/** Outbound webhooks' HTTP client against a receiver on this machine: allowed, or refused before connecting. */
let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.headers['webhook-id']} ${body}`);
      if (req.url === '/redirect') res.writeHead(302, { Location: `http://127.0.0.1:${port}/hook` }).end();
      else res.writeHead(req.url === '/answer' ? 200 : 204).end(req.url === '/answer' ? '{"ok":true}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (url: string, allowPrivate: boolean) =>
  postOutbound(url, {
    headers: { 'Content-Type': 'application/json', 'webhook-id': 'msg_1' },
    body: '{"a":1}',
    timeoutMs: 5000,
    signal: new AbortController().signal,
    allowPrivate,
  });

describe('postOutbound', () => {
  it('posts and answers the status and body when private targets are allowed', async () => {
    expect(await post(`http://127.0.0.1:${port}/hook`, true)).toEqual({ status: 204, text: '' });
    expect(await post(`http://127.0.0.1:${port}/answer`, true)).toEqual({ status: 200, text: '{"ok":true}' });
    expect(received).toEqual(['POST msg_1 {"a":1}', 'POST msg_1 {"a":1}']);
  });

  it('does not follow a redirect', async () => {
    received.length = 0;
    expect((await post(`http://127.0.0.1:${port}/redirect`, true)).status).toBe(302);
    expect(received).toEqual(['POST msg_1 {"a":1}']);
  });

  it('refuses a private address, by literal IP or by a name that resolves to one, before connecting', async () => {
    received.length = 0;
    for (const url of [
      `http://127.0.0.1:${port}/hook`,
      `http://localhost:${port}/hook`,
      `http://[::1]:${port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3:8080/',
    ]) {
      const err = await post(url, false).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(RefusedTargetError);
      expect((err as Error).message, url).toMatch(/not a public address: refused/);
    }
    expect(received).toEqual([]);
  });
});

describe('isPublicAddress', () => {
  it('takes only public unicast addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
