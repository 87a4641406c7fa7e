import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { TemporalSecurity } from '../config.ts';

/** What both `Connection.connect` (client) and `NativeConnection.connect` (worker) take to reach the server. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

/**
 * The one place every Temporal connection gets its options from (api, worker, start
 * command, scripts, bench): address plus TLS, mTLS and API key from the configuration.
 * Files are read here, so a rotated certificate is picked up on the next connect.
 */
export function temporalConnectionOptions(temporal: {
  address: string;
  security: TemporalSecurity;
}): TemporalConnectionOptions {
  const { address, security } = temporal;
  if (!security.tls) return { address };
  const tls: TLSConfig = {};
  if (security.serverName) tls.serverNameOverride = security.serverName;
  if (security.caPath) tls.serverRootCACertificate = readFileSync(security.caPath);
  if (security.certPath && security.keyPath)
    tls.clientCertPair = { crt: readFileSync(security.certPath), key: readFileSync(security.keyPath) };
  return { address, tls, ...(security.apiKey ? { apiKey: security.apiKey } : {}) };
}
