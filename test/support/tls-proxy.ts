import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface TestCertificates {
  dir: string;
  caPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  clientCertPath: string;
  clientKeyPath: string;
}

/** A throw-away CA, a server certificate for `serverName` and a client certificate, made with openssl. */
export function makeCertificates(serverName: string): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'ars-tls-'));
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  for (const [name, cn, ext] of [
    ['server', serverName, `subjectAltName=DNS:${serverName}\nextendedKeyUsage=serverAuth`],
    ['client', 'agent-run-service-worker', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    writeFileSync(f(`${name}.ext`), `${ext}\n`);
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.csr`),
    );
    openssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`),
    );
  }
  return {
    dir,
    caPath: f('ca.pem'),
    serverCertPath: f('server.pem'),
    serverKeyPath: f('server.key'),
    clientCertPath: f('client.pem'),
    clientKeyPath: f('client.key'),
  };
}

export interface TlsProxy {
  address: string;
  close(): Promise<void>;
}

/**
 * TLS termination (HTTP/2 by ALPN, as gRPC needs) in front of a plaintext Temporal
 * frontend: the dev server cannot serve TLS itself. With `requireClientCert`, a client
 * without a certificate signed by the CA is refused (mTLS, as Temporal Cloud does).
 */
export async function startTlsProxy(
  target: string,
  certs: TestCertificates,
  requireClientCert: boolean,
): Promise<TlsProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const server: Server = createServer(
    {
      cert: readFileSync(certs.serverCertPath),
      key: readFileSync(certs.serverKeyPath),
      ca: readFileSync(certs.caPath),
      requestCert: requireClientCert,
      rejectUnauthorized: requireClientCert,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      const upstream = connect(port, host);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop);
      upstream.on('error', drop);
      client.pipe(upstream).pipe(client);
    },
  );
  server.on('tlsClientError', () => {}); // a refused client is the expected outcome of the negative test
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
