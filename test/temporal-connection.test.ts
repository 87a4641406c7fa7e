import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { temporalConnectionOptions } from '../src/connections/temporal.ts';
import { makeCertificates, startTlsProxy, type TestCertificates, type TlsProxy } from './support/tls-proxy.ts';

const SERVER_NAME = 'temporal.test.internal';
let certs: TestCertificates;

beforeAll(() => {
  certs = makeCertificates(SERVER_NAME);
});

const options = (env: Record<string, string>) =>
  temporalConnectionOptions(loadConfig({ DATA_DIR: certs.dir, ...env }).temporal);

describe('Temporal connection options from the environment', () => {
  it('is plaintext by default, TLS with system roots for TEMPORAL_TLS=true', () => {
    expect(options({ TEMPORAL_ADDRESS: 'temporal:7233' })).toEqual({ address: 'temporal:7233' });
    expect(options({ TEMPORAL_TLS: 'true' })).toEqual({ address: '127.0.0.1:7233', tls: {} });
  });

  it('an API key implies TLS (Temporal Cloud)', () => {
    expect(options({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'k' })).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      tls: {},
      apiKey: 'k',
    });
  });

  it('reads the CA, the client pair and the server name for mTLS', () => {
    const o = options({
      TEMPORAL_TLS_CA_PATH: certs.caPath,
      TEMPORAL_TLS_CERT_PATH: certs.clientCertPath,
      TEMPORAL_TLS_KEY_PATH: certs.clientKeyPath,
      TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    });
    expect(o.tls?.serverNameOverride).toBe(SERVER_NAME);
    expect(Buffer.from(o.tls!.serverRootCACertificate!).toString()).toContain('BEGIN CERTIFICATE');
    expect(Buffer.from(o.tls!.clientCertPair!.key).toString()).toContain('PRIVATE KEY');
  });

  it('refuses at boot a certificate without its key, a missing file, and TLS settings with TEMPORAL_TLS=false', () => {
    const boot = (env: Record<string, string>) => () => loadConfig({ DATA_DIR: certs.dir, ...env });
    expect(boot({ TEMPORAL_TLS_CERT_PATH: certs.clientCertPath })).toThrow(
      /TEMPORAL_TLS_KEY_PATH: required with TEMPORAL_TLS_CERT_PATH/,
    );
    expect(boot({ TEMPORAL_TLS_KEY_PATH: certs.clientKeyPath })).toThrow(/TEMPORAL_TLS_CERT_PATH: required/);
    expect(boot({ TEMPORAL_TLS_CA_PATH: '/nonexistent/ca.pem' })).toThrow(/TEMPORAL_TLS_CA_PATH: no file at/);
    expect(boot({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toThrow(/TEMPORAL_TLS: is false/);
    expect(boot({ TEMPORAL_TLS: 'maybe' })).toThrow(/TEMPORAL_TLS/);
  });
});

describe('a real mTLS connection (TLS-terminating proxy in front of the dev server)', () => {
  let proxy: TlsProxy;
  beforeAll(async () => {
    proxy = await startTlsProxy(inject('temporalAddress'), certs, true);
  });
  afterAll(() => proxy?.close());

  const mtls = () => ({
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_CA_PATH: certs.caPath,
    TEMPORAL_TLS_CERT_PATH: certs.clientCertPath,
    TEMPORAL_TLS_KEY_PATH: certs.clientKeyPath,
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
  });

  it('the api client and the worker connection reach Temporal over mTLS', async () => {
    const connection = await Connection.connect(options(mtls()));
    try {
      const client = new Client({ connection });
      const ns = await client.workflowService.describeNamespace({ namespace: 'default' });
      expect(ns.namespaceInfo?.name).toBe('default');
    } finally {
      await connection.close();
    }
    const native = await NativeConnection.connect(options(mtls()));
    try {
      const info = await native.workflowService.getSystemInfo({});
      expect(info.serverVersion).toBeTruthy();
    } finally {
      await native.close();
    }
  });

  it('is refused without the client certificate, and when the server name does not match', async () => {
    const noClientCert = { ...mtls(), TEMPORAL_TLS_CERT_PATH: '', TEMPORAL_TLS_KEY_PATH: '' };
    await expect(
      Connection.connect({ ...options(noClientCert), connectTimeout: 3000 }).then((c) =>
        c.workflowService.getSystemInfo({}),
      ),
    ).rejects.toThrow();
    const wrongName = { ...mtls(), TEMPORAL_TLS_SERVER_NAME: 'other.name' };
    await expect(
      Connection.connect({ ...options(wrongName), connectTimeout: 3000 }).then((c) =>
        c.workflowService.getSystemInfo({}),
      ),
    ).rejects.toThrow();
  });
});

describe('a real TLS connection with an API key (as to Temporal Cloud)', () => {
  let proxy: TlsProxy;
  beforeAll(async () => {
    proxy = await startTlsProxy(inject('temporalAddress'), certs, false);
  });
  afterAll(() => proxy?.close());

  it('the api client and the worker connection reach Temporal over TLS, sending the key (the dev server does not check it)', async () => {
    const env = {
      TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_API_KEY: 'test-api-key',
      TEMPORAL_TLS_CA_PATH: certs.caPath,
      TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    };
    expect(options(env)).toMatchObject({ apiKey: 'test-api-key', tls: { serverNameOverride: SERVER_NAME } });
    const connection = await Connection.connect(options(env));
    try {
      expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
    const native = await NativeConnection.connect(options(env));
    try {
      expect((await native.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await native.close();
    }
  });
});
