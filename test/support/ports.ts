import { createServer } from 'node:net';

/**
 * A port for a process we start to listen on: below Linux's ephemeral range (32768–60999), so no
 * outgoing connection of this machine can take it before the process binds it, and free now. A
 * port drawn blindly from 20000–40000 was once taken, and the bench's api (which then still ran
 * on without listening, see src/api/server.ts) never became ready.
 */
export async function freeListenPort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await canBind(port, host)) return port;
  }
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}
