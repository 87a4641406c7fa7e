import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogContext, requestLogFields } from '../../src/api/request-log-context.ts';

describe('request log context', () => {
  it('every line a handler writes, also after awaits, carries the request id and the caller', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) =>
        void (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
    });
    const logger = pino({ mixin: requestLogFields }, sink);
    const app = express();
    app.use((req, _res, next) => {
      (req as unknown as { id: string }).id = String(req.headers['x-request-id']);
      next();
    });
    app.use(express.json());
    app.use(requestLogContext);
    app.use((req, _res, next) => {
      req.caller = { orgId: 'org_1', userId: 'usr_1' } as typeof req.caller;
      next();
    });
    app.post('/x', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      logger.info({ runId: 'run_1' }, 'about a run');
      res.json({});
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    await Promise.all(
      ['a', 'b'].map((id) =>
        fetch(url, { method: 'POST', headers: { 'X-Request-Id': id, 'Content-Type': 'application/json' }, body: '{}' }),
      ),
    );
    server.close();
    logger.info('outside any request');
    expect(
      lines
        .filter((l) => l.msg === 'about a run')
        .map((l) => [l.reqId, l.orgId, l.userId, l.runId])
        .sort(),
    ).toEqual([
      ['a', 'org_1', 'usr_1', 'run_1'],
      ['b', 'org_1', 'usr_1', 'run_1'],
    ]);
    expect(lines.find((l) => l.msg === 'outside any request')).not.toHaveProperty('reqId');
  });
});
