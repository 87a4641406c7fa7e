import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The target resolves to an address that is not public (loopback, private, link-local, …). */
export class RefusedTargetError extends Error {
  override name = 'RefusedTargetError';
}

/** Public unicast addresses only: not loopback, private, link-local, carrier-grade NAT, multicast or reserved. */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unicast';
}

export function refusal(host: string, address: string): RefusedTargetError {
  return new RefusedTargetError(
    `${host} is ${address}, not a public address: refused (OUTBOUND_PRIVATE_TARGETS=refuse)`,
  );
}

/**
 * dns.lookup that fails when any address of the name is not public. The connection is made to
 * the address checked here, so a name that resolves differently a moment later (DNS rebinding)
 * cannot slip past the check.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(refusal(hostname, refused.address), '', 0);
    if (options.all) return (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
