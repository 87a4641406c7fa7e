import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { ToolError } from '../shared/tools/tool-error.ts';
import { HOST_TOOL_PATH } from './limits.ts';

/**
 * The network of a sandbox whose agent has `sandbox.network: true`. The sandbox never
 * shares the worker's network namespace (its loopback holds the Temporal frontend,
 * PostgreSQL and the metrics; the host's network reaches the cloud metadata address).
 * It gets a namespace of its own, as every sandbox does, and slirp4netns gives that
 * namespace a user-space TCP/IP stack whose connections leave from the host as
 * ordinary sockets. Before the command starts, an nftables filter in the sandbox's
 * namespace refuses every packet to loopback, private, shared, link-local and reserved
 * IPv4 ranges, to the host's own addresses, and all IPv6 but the sandbox's own loopback.
 * The command runs without CAP_NET_ADMIN, so it cannot change the filter; raw sockets
 * and binding to a device do not pass it either (the filter looks at the destination
 * of every packet, not at the route).
 */

/** slirp4netns's defaults: the sandbox is 10.0.2.100, the gateway 10.0.2.2 (the host), 10.0.2.3 its DNS forwarder. */
export const SLIRP_DNS = '10.0.2.3';

/** The resolv.conf a networked sandbox sees: slirp4netns forwards to the host's resolvers. */
export const SANDBOX_RESOLV_CONF = `nameserver ${SLIRP_DNS}\n`;

/** Destinations no sandbox reaches: "this network", private, shared (CGNAT), loopback, link-local (cloud metadata), IETF, benchmarking, multicast and reserved. */
export const BLOCKED_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/**
 * The nftables ruleset of a networked sandbox's namespace. The DNS forwarder is the one
 * private address it may use (port 53 only: slirp4netns answers it by asking the host's
 * resolvers). IPv6 is refused whole: slirp4netns runs without it, and refusing keeps
 * link-local and unique-local addresses out of reach should an address appear.
 */
export function egressRules(hostAddresses: readonly string[]): string {
  const refuse = 'reject with icmpx type admin-prohibited';
  return [
    'table inet sandbox {',
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    '    oif "lo" accept',
    `    ip daddr ${SLIRP_DNS} meta l4proto { tcp, udp } th dport 53 accept`,
    `    ip daddr { ${BLOCKED_IPV4.join(', ')} } ${refuse}`,
    ...(hostAddresses.length > 0 ? [`    ip daddr { ${hostAddresses.join(', ')} } ${refuse}`] : []),
    `    meta nfproto ipv6 ${refuse}`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The host's own IPv4 addresses: a public one would otherwise reach the worker's own services. */
export function hostIpv4Addresses(): string[] {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return [...new Set(all.filter((a) => a.family === 'IPv4').map((a) => a.address))];
}

export type NetworkSupport = { ok: true } | { ok: false; reason: string };

/** Whether this host can give sandboxes a filtered network (probed once, with the rest of the tooling). */
export function probeNetworkSupport(workerIsRoot: boolean): NetworkSupport {
  // Unprivileged, the sandbox's namespace belongs to bwrap's user namespace; filtering it is not set up for that case.
  if (!workerIsRoot) return { ok: false, reason: 'the worker does not run as root' };
  for (const [tool, pkg] of [
    ['slirp4netns', 'slirp4netns'],
    ['nft', 'nftables'],
    ['nsenter', 'util-linux'],
  ] as const) {
    if (spawnSync(tool, ['--version'], { env: { PATH: HOST_TOOL_PATH }, stdio: 'ignore' }).status !== 0)
      return { ok: false, reason: `${tool} is not installed (Debian package ${pkg})` };
  }
  return { ok: true };
}

export function networkUnavailable(reason: string): ToolError {
  return new ToolError(
    `run_command with sandbox.network is unavailable on this sandbox host: ${reason}. Commands never share the worker's own network; an operator must install slirp4netns and nftables and run the worker as root, or turn sandbox.network off.`,
    'SANDBOX_NETWORK_UNAVAILABLE',
  );
}

const READY_TIMEOUT_MS = 10_000;

/** A running slirp4netns for one command; close() ends it. */
export interface AttachedNetwork {
  close(): Promise<void>;
}

/**
 * Filters, then connects, the network namespace of the sandbox whose first process is `pid`
 * (bwrap's --info-fd child-pid, held at --block-fd until this resolves).
 */
export async function attachNetwork(pid: number, hostAddresses: readonly string[]): Promise<AttachedNetwork> {
  const netns = `/proc/${pid}/ns/net`;
  const nft = spawnSync('nsenter', [`--net=${netns}`, 'nft', '-f', '-'], {
    env: { PATH: HOST_TOOL_PATH },
    input: egressRules(hostAddresses),
    encoding: 'utf8',
    timeout: READY_TIMEOUT_MS,
  });
  if (nft.status !== 0)
    throw networkUnavailable(
      `its firewall could not be set (${(nft.stderr || String(nft.error ?? '')).trim().split('\n')[0]})`,
    );
  // fd 3: slirp4netns writes when the interface is configured; fd 4: it exits when the worker closes (or loses) the other end.
  const slirp = spawn(
    'slirp4netns',
    [
      '--configure',
      '--mtu=65520',
      '--disable-host-loopback',
      '--enable-sandbox',
      '--enable-seccomp',
      '--ready-fd=3',
      '--exit-fd=4',
      String(pid),
      'tap0',
    ],
    { env: { PATH: HOST_TOOL_PATH }, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  // 'error' (it could not be started) comes without 'exit'.
  const exited = new Promise<string>((resolve) => {
    slirp.once('exit', () => resolve('exited'));
    slirp.once('error', (err) => resolve(String(err)));
  });
  const close = async () => {
    (slirp.stdio[4] as Writable).destroy();
    if (slirp.exitCode === null && slirp.signalCode === null) slirp.kill('SIGTERM');
    await exited;
  };
  let stderr = '';
  slirp.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const ready = slirp.stdio[3] as Readable;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    once(ready, 'data').then(() => 'ready' as const),
    exited,
    new Promise<string>(
      (resolve) => (timer = setTimeout(() => resolve('slirp4netns was not ready in time'), READY_TIMEOUT_MS)),
    ),
  ]);
  clearTimeout(timer);
  if (outcome === 'ready') return { close };
  await close();
  throw networkUnavailable(
    outcome === 'exited' ? `slirp4netns failed (${stderr.trim().split('\n').at(-1) ?? ''})` : outcome,
  );
}
