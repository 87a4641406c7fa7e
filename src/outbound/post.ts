import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress, publicOnlyLookup, refusal } from './address-guard.ts';

// Callers catch what postOutbound throws without reaching into the guard.
export { RefusedTargetError } from './address-guard.ts';

/** The part of a response body kept: enough for an API's error answer, never a whole download. */
const RESPONSE_TEXT_LIMIT = 64 * 1024;

export interface OutboundResponse {
  status: number;
  /** The response body as text, cut at 64 KiB. */
  text: string;
}

export interface OutboundPost {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** false: only public addresses (the host name's every address is checked, and so is a literal IP). */
  allowPrivate: boolean;
}

/**
 * The one HTTP client for calls the worker makes on an org's behalf (webhooks, Slack replies):
 * POSTs `body` to `url` and answers the status and the start of the body; redirects are not
 * followed. Fails with RefusedTargetError, before connecting, when private targets are not
 * allowed and the host is not public.
 */
export async function postOutbound(url: string, post: OutboundPost): Promise<OutboundResponse> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!post.allowPrivate && net.isIP(host) && !isPublicAddress(host)) throw refusal(host, host);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const req = client.request(target, {
      method: 'POST',
      headers: { ...post.headers, 'Content-Length': Buffer.byteLength(post.body) },
      signal: AbortSignal.any([AbortSignal.timeout(post.timeoutMs), post.signal]),
      ...(post.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_TEXT_LIMIT) chunks.push(chunk.subarray(0, RESPONSE_TEXT_LIMIT - kept));
        kept += chunk.length;
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(post.body);
  });
}
