import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** An outage: every open connection is cut and new ones are refused until `restore`. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
  /** New connections go to this server from now on (open ones stay where they are). */
  retarget(host: string, port: number): void;
  /** Connections accepted so far. */
  readonly connections: number;
}

/**
 * A TCP proxy in front of a real server (PostgreSQL, Temporal) that can take the server
 * away and give it back on the same port, the way an outage looks to our processes, or move
 * it to another server (a client of a replaced api process keeps its address).
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let connections = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        connections++;
        const upstream = connect(targetPort, targetHost);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    port,
    cut: stop,
    restore: listen,
    close: stop,
    retarget(host, to) {
      targetHost = host;
      targetPort = to;
    },
    get connections() {
      return connections;
    },
  };
}
