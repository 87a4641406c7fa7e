import net from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { isPublicAddress, publicOnlyLookup, refusal } from './address-guard.ts';

/** Connections that reach public addresses only: every name is resolved through the guard, at connect time. */
const publicOnly = new Agent({ connect: { lookup: publicOnlyLookup } });

/**
 * fetch for clients we do not write ourselves (the MCP SDK's transports) that call targets an org
 * set: with `allowPrivate` false, a literal address that is not public is refused before connecting,
 * and a host name is checked on each connection (so DNS rebinding cannot slip past).
 */
export function guardedFetch(allowPrivate: boolean): UrlFetch {
  if (allowPrivate) return fetch;
  return (input, init) => {
    const url = new URL(input);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !isPublicAddress(host)) return Promise.reject(refusal(host, host));
    return undiciFetch(url, { ...(init as object), dispatcher: publicOnly }) as unknown as Promise<Response>;
  };
}

export type UrlFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
