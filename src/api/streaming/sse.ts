import type { Response } from 'express';

/** Opens an SSE response. Proxies must not buffer it. */
export function openSse(res: Response, headers: Record<string, string> = {}): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...headers,
  });
  res.flushHeaders();
}

/** Writes one frame; resolves once the socket has room again (backpressure). */
export function writeFrame(res: Response, data: unknown, id?: string): Promise<void> {
  const frame = `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
  if (res.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
