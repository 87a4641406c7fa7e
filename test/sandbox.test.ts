import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCgroups } from '../src/sandbox/cgroups.ts';
import { BLOCKED_IPV4, egressRules } from '../src/sandbox/sandbox-network.ts';
import type { Sandbox } from '../src/sandbox/sandbox.ts';
import { eventually } from './support/eventually.ts';
import { hostProcesses, sandboxConfig, sandboxHost, uniqueTag, removeSandboxDirs } from './support/sandbox.ts';
import { createTenant, testDb, type Tenant } from './support/tenant.ts';

/** Isolation and limits of the sandbox, over real bubblewrap and real files. */
let a: Tenant;
let b: Tenant;
let mine: Sandbox;
let neighbour: Sandbox;
let otherOrg: Sandbox;

beforeAll(async () => {
  [a, b] = await Promise.all([createTenant(), createTenant()]);
  const host = sandboxHost();
  mine = host.sandbox(a.orgId, a.agentId);
  neighbour = host.sandbox(a.orgId, a.privateAgentId);
  otherOrg = host.sandbox(b.orgId, b.agentId);
  await neighbour.writeFile('secret.txt', 'neighbour secret');
  await otherOrg.writeFile('secret.txt', 'other org secret');
  await mine.writeFile('notes/a.txt', 'mine');
});
afterAll(removeSandboxDirs);

describe('workspaces are separate', () => {
  it('each (org, agent) has its own directory', () => {
    expect(new Set([mine.dir, neighbour.dir, otherOrg.dir]).size).toBe(3);
    expect(readFileSync(path.join(neighbour.dir, 'secret.txt'), 'utf8')).toBe('neighbour secret');
  });

  it.each([
    ['/etc/passwd'],
    ['/workspace/../etc/passwd'],
    ['../secret.txt'],
    [`../${'x'}/../../${'y'}`],
    ['notes/../../secret.txt'],
  ])('file tools refuse %s', async (p) => {
    await expect(mine.readFile(p)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(mine.writeFile(p, 'x')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
  });

  it("refuses the neighbour's and the other org's workspace by relative path", async () => {
    const toNeighbour = path.relative(mine.dir, path.join(neighbour.dir, 'secret.txt'));
    const toOtherOrg = path.relative(mine.dir, path.join(otherOrg.dir, 'secret.txt'));
    for (const p of [toNeighbour, toOtherOrg, path.join(neighbour.dir, 'secret.txt')]) {
      await expect(mine.readFile(p)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
    await expect(mine.listFiles('..')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
  });

  it('refuses symlinks that lead out, follows those that stay in', async () => {
    const made = await mine.runCommand(
      `ln -s /etc/passwd passwd-link && ln -s .. up && ln -s ${neighbour.dir}/secret.txt host-link && ` +
        'ln -s /tmp/created-through-link dangling && ln -s notes/a.txt inside && ln -s /workspace/notes abs-inside',
    );
    expect(made.exit_code, made.stderr).toBe(0);
    for (const p of ['passwd-link', 'up/secret.txt', 'host-link', 'dangling']) {
      await expect(mine.readFile(p)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    }
    await expect(mine.writeFile('dangling', 'escaped')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(mine.writeFile('passwd-link', 'escaped')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    expect(existsSync('/tmp/created-through-link')).toBe(false);
    await expect(mine.listFiles('up')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    expect((await mine.readFile('inside')).content).toBe('mine');
    expect((await mine.readFile('abs-inside/a.txt')).content).toBe('mine');
    expect((await mine.readFile('/workspace/notes/a.txt')).content).toBe('mine');
  });

  it('commands see only their own workspace', async () => {
    const r = await mine.runCommand(
      `cat ${neighbour.dir}/secret.txt; cat ${otherOrg.dir}/secret.txt; ls /workspace/..; cat /etc/shadow; ls /root; ` +
        `find / -path /proc -prune -o -name secret.txt -print 2>/dev/null`,
    );
    expect(r.stdout).not.toContain('secret');
    expect(r.stdout).not.toContain('neighbour');
    expect(r.stderr).toContain('No such file or directory');
    // The root holds only what bwrap mounted: no host directories beyond the system ones.
    expect(r.stdout.split('\n').slice(0, 12)).toEqual(
      expect.arrayContaining(['workspace', 'usr', 'tmp', 'etc', 'proc', 'dev']),
    );
    expect(r.stdout).not.toMatch(/^(root|home|work|var\/lib|srv|opt)$/m);
  });

  it('sandboxes get uids of their own, also where a 16-bit hash of org and agent collided; a sandbox keeps its uid', async () => {
    if (process.getuid?.() !== 0) return; // unprivileged, every sandbox is uid 1000 in a user namespace of its own
    // Two agents of one org whose ids collide under the old scheme (uid base + the first 16 bits of sha256("org/agent")).
    const hashed = (agentId: string) => createHash('sha256').update(`${a.orgId}/${agentId}`).digest().readUInt16BE(0);
    const prefix = `agt_uid_${uniqueTag()}`;
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const id = `${prefix}_${i}`;
      const earlier = seen.get(hashed(id));
      if (earlier) pair = [earlier, id];
      else seen.set(hashed(id), id);
    }
    await testDb().agent.createMany({ data: pair.map((id) => ({ id, orgId: a.orgId, name: id })) });
    const host = sandboxHost();
    const uids = await Promise.all(
      pair.map(async (id) => (await host.sandbox(a.orgId, id).runCommand('id -u')).stdout.trim()),
    );
    expect(uids[0]).toMatch(/^\d+$/);
    expect(uids[1]).not.toBe(uids[0]);
    // The same sandbox keeps its uid, in another worker process too.
    expect((await sandboxHost().sandbox(a.orgId, pair[0]).runCommand('id -u')).stdout.trim()).toBe(uids[0]);
    expect(statSync(host.sandbox(a.orgId, pair[1]).dir).uid).toBe(Number(uids[1]));
  });

  it('files written in the sandbox cannot be read by another agent', async () => {
    await mine.runCommand('echo private-to-mine > mine-only.txt');
    await expect(neighbour.readFile('mine-only.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const r = await neighbour.runCommand('cat mine-only.txt; find / -name mine-only.txt 2>/dev/null');
    expect(r.stdout).not.toContain('private-to-mine');
    expect(r.stdout.trim()).toBe('');
  });
});

describe('no network, no secrets', () => {
  it('cannot reach the host network', async () => {
    const r = await mine.runCommand(
      'echo > /dev/tcp/127.0.0.1/5432 && echo CONNECTED-PG; ' +
        `python3 -c "import socket; socket.create_connection(('127.0.0.1', 5432), 2); print('CONNECTED-PY')"; ` +
        'ls /sys/class/net 2>/dev/null; cat /proc/net/dev',
    );
    expect(r.stdout).not.toContain('CONNECTED');
    expect(r.stderr).toMatch(/Connection refused|Network is unreachable/);
    // Only the loopback device of the sandbox's own network namespace.
    expect(r.stdout).toContain('lo:');
    expect(r.stdout).not.toMatch(/eth\d|ens\d|enp/);
  });

  it("the environment is the sandbox's own, none of the worker's", async () => {
    process.env.SANDBOX_TEST_CANARY = 'canary-value';
    const r = await mine.runCommand('env; cat /proc/1/environ 2>&1 | tr "\\0" "\\n"');
    delete process.env.SANDBOX_TEST_CANARY;
    expect(r.stdout).not.toContain('canary-value');
    expect(r.stdout).not.toMatch(/DATABASE_URL|JWT_SECRET|TEMPORAL|MODEL_API_KEY|postgres/);
    const names = r.stdout
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=')[0]!);
    const allowed = [
      'PATH',
      'HOME',
      'USER',
      'LOGNAME',
      'SHELL',
      'LANG',
      'TERM',
      'TMPDIR',
      'PWD',
      'SHLVL',
      '_',
      'OLDPWD',
    ];
    expect(names.filter((n) => !allowed.includes(n))).toEqual([]);
    expect(r.stdout).toContain('HOME=/workspace/.home');
  });

  it('runs unprivileged, without capabilities', async () => {
    const r = await mine.runCommand(
      'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status; touch /usr/x; echo x > /etc/x',
    );
    expect(r.stdout).not.toMatch(/^0$/m);
    expect(r.stdout).toContain('CapEff:\t0000000000000000');
    expect(r.stderr).toMatch(/Read-only file system|Permission denied/);
  });
});

describe('what runs is the command, nothing else', () => {
  it('dotfiles in the shared workspace (write_file needs no approval) never run with a command', async () => {
    const payload = 'echo PAYLOAD-RAN; touch /workspace/pwned';
    const planted = [
      '.home/.bashrc',
      '.home/.profile',
      '.home/.bash_profile',
      '.home/.bash_login',
      '.home/.bash_logout',
    ];
    for (const file of planted) await mine.writeFile(file, `${payload}-${path.basename(file)}\n`);
    // A program in the user's own bin directory never stands in for a system one.
    await mine.writeFile('.home/.local/bin/ls', `#!/bin/sh\n${payload}-shim\n`);
    await mine.runCommand('chmod +x ~/.local/bin/ls');
    try {
      const r = await mine.runCommand('ls -a /workspace; echo "BASH_ENV=${BASH_ENV-unset} ENV=${ENV-unset} $-"');
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('PAYLOAD');
      expect(r.stdout).not.toContain('pwned');
      expect(r.stdout).toContain('BASH_ENV=unset ENV=unset hBc\n'); // not interactive (no i), not a login shell
      expect(existsSync(path.join(mine.dir, 'pwned'))).toBe(false);
    } finally {
      for (const file of [...planted, '.home/.local/bin/ls', 'pwned'])
        await rm(path.join(mine.dir, file), { force: true });
    }
  });
});

describe('a network of its own (sandbox.network)', () => {
  /** Connects to each host:port from the sandbox; prints `open <target>` or the error. */
  const probe = (targets: string[]) =>
    `python3 -c "
import socket, sys
for t in sys.argv[1:]:
    h, p = t.rsplit(':', 1)
    try:
        socket.create_connection((h.strip('[]'), int(p)), 3).close(); print('open', t)
    except OSError as e:
        print('refused', t, e.strerror)
" ${targets.join(' ')}`;

  it("reaches neither the host's loopback nor its own addresses; the filter refuses every private, shared, link-local and reserved range", async () => {
    const servers = await Promise.all(['127.0.0.1', '0.0.0.0'].map(listen));
    try {
      const [loopbackPort, anyPort] = servers.map((s) => (s.address() as AddressInfo).port);
      const own = Object.values(networkInterfaces())
        .flatMap((l) => l ?? [])
        .filter((a) => a.family === 'IPv4' && !a.internal)
        .map((a) => a.address);
      // Only targets on this machine are tried: a filter that failed must not send a packet anywhere else.
      // 10.0.2.2 (slirp's name for the host's loopback) is refused by the rule of the blocked ranges (10.0.0.0/8).
      const blocked = [`10.0.2.2:${loopbackPort}`, ...own.map((a) => `${a}:${anyPort}`), `[fe80::1%tap0]:${anyPort}`];
      const r = await mine.runCommand(probe([`127.0.0.1:${loopbackPort}`, ...blocked]), { network: true });
      expect(r.stdout).not.toContain('open');
      // 127.0.0.1 is the sandbox's own loopback; the rest are refused before they leave it.
      expect(r.stdout).toContain(`refused 127.0.0.1:${loopbackPort} Connection refused`);
      for (const target of blocked)
        expect(r.stdout).toMatch(
          new RegExp(
            `refused ${target.replace(/[[\].]/g, '\\$&')} (No route to host|Network is unreachable|Permission denied|Cannot assign requested address)`,
          ),
        );
    } finally {
      for (const s of servers) s.close();
    }
    const rules = egressRules(['192.0.2.2']);
    for (const range of [
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '100.64.0.0/10',
      '169.254.0.0/16',
      '127.0.0.0/8',
    ])
      expect(BLOCKED_IPV4).toContain(range);
    expect(rules).toContain(`ip daddr { ${BLOCKED_IPV4.join(', ')} } reject`);
    expect(rules).toContain('ip daddr { 192.0.2.2 } reject');
    expect(rules).toContain('meta nfproto ipv6 reject');
  });

  const interfaces = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort";

  it('still has a network: its own interface and route, DNS through slirp4netns', async () => {
    const r = await mine.runCommand(
      `${interfaces}; cat /etc/resolv.conf; awk '$2 == "00000000" {print $1, "default"}' /proc/net/route; ls /proc/self/fd | tr '\\n' ' '`,
      { network: true },
    );
    const [net, fds] = [
      r.stdout.slice(0, r.stdout.lastIndexOf('\n') + 1),
      r.stdout
        .slice(r.stdout.lastIndexOf('\n') + 1)
        .trim()
        .split(' '),
    ];
    expect(net).toBe('lo\ntap0\nnameserver 10.0.2.3\ntap0 default\n');
    // The descriptors bwrap reported the pid on and waited on are not the command's.
    expect(fds).toEqual(expect.arrayContaining(['0', '1', '2']));
    expect(fds).not.toContain('4');
    expect(fds).not.toContain('5');
  });

  it('without the agent setting, no network at all', async () => {
    const r = await mine.runCommand(`${interfaces}; cat /etc/resolv.conf`);
    expect(r.stdout).toBe('lo\n');
  });
});

function listen(host: string): Promise<Server> {
  const server = createServer((socket) => socket.on('error', () => {}).end('pong\n'));
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}

describe('kernel surface', () => {
  it('a seccomp filter refuses new namespaces (user namespaces included), mounts and ptrace', async () => {
    const r = await mine.runCommand(
      'grep Seccomp: /proc/self/status; unshare --user --map-root-user true; echo user=$?; unshare --user --mount true; echo mount=$?; ' +
        // PTRACE_TRACEME succeeds for any process without the filter.
        `python3 -c "import ctypes; libc = ctypes.CDLL(None, use_errno=True); print('ptrace', libc.ptrace(0, 0, 0, 0), ctypes.get_errno())"; ` +
        '(sleep 0.1 & wait) && echo children-still-work',
    );
    expect(r.stdout).toBe('Seccomp:\t2\nuser=1\nmount=1\nptrace -1 1\nchildren-still-work\n');
    expect(r.stderr).toBe('unshare: unshare failed: Operation not permitted\n'.repeat(2));
  });
});

describe('limits', () => {
  it('kills a command at its timeout, with its whole process tree', async () => {
    const tag = uniqueTag();
    const started = Date.now();
    const r = await mine.runCommand(`sleep 100.${tag} & sleep 100.${tag}`, { timeoutMs: 1000 });
    expect(r).toMatchObject({ timed_out: true, exit_code: null });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]);
  });

  it('background processes do not outlive their command', async () => {
    const tag = uniqueTag();
    const r = await mine.runCommand(`(sleep 100.${tag} &) ; nohup sleep 100.${tag} >/dev/null 2>&1 & echo started`);
    expect(r.exit_code).toBe(0);
    // They would live 100 s: gone within a few means they were killed with the command.
    await eventually(
      'the background processes to be killed',
      () => expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]),
      {
        timeout: 5000,
        interval: 50,
      },
    );
  });

  it('contains a fork bomb with the process limit, then kills it', async () => {
    const tag = uniqueTag();
    const r = await mine.runCommand(
      `for i in $(seq 1000); do sleep 100.${tag} & done; sleep 1; ps -e --no-headers | wc -l`,
      { timeoutMs: 5000 },
    );
    expect(r.stderr).toContain('Resource temporarily unavailable');
    const counted = Number(r.stdout.trim());
    if (!r.timed_out && counted > 0) expect(counted).toBeLessThanOrEqual(64 + 2);
    expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]);
  }, 20_000);

  it('a classic fork bomb ends at its timeout and leaves nothing behind', async () => {
    const bomb = `bomb_${uniqueTag()}`;
    const started = Date.now();
    const r = await mine.runCommand(`${bomb}() { ${bomb} | ${bomb} & }; ${bomb}; sleep 100`, { timeoutMs: 2000 });
    expect(r).toMatchObject({ timed_out: true, exit_code: null });
    expect(r.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hostProcesses(bomb)).toEqual([]);
    expect((await mine.runCommand('echo still-usable')).stdout).toBe('still-usable\n');
  }, 20_000);

  it('a runaway loop is stopped by its timeout, or by the CPU-time limit', async () => {
    const looped = await mine.runCommand('while :; do :; done', { timeoutMs: 1000 });
    expect(looped).toMatchObject({ timed_out: true, exit_code: null });
    const cpuCapped = sandboxHost(sandboxConfig({ SANDBOX_CPU_SECONDS: '1' })).sandbox(a.orgId, a.agentId);
    const r = await cpuCapped.runCommand('bash -c "while :; do :; done"; echo "loop ended with $?"', {
      timeoutMs: 20_000,
    });
    // Killed after one second of CPU time (SIGKILL, as the soft and hard limits are equal).
    expect(r).toMatchObject({ timed_out: false, exit_code: 0, stdout: 'loop ended with 137\n' });
    expect(r.duration_ms).toBeLessThan(10_000);
  }, 30_000);

  it('a memory hog spread over processes is killed at the limit for all of them together', async () => {
    const small = sandboxHost(sandboxConfig({ SANDBOX_MEMORY_BYTES: String(256 * 1024 * 1024) })).sandbox(
      a.orgId,
      a.agentId,
    );
    // Four processes of 100 MB each: each is under the per-process limit, together they are over it.
    const hog = 'python3 -c "import time; b = bytearray(100 * 1024 ** 2); time.sleep(1.5)"';
    const r = await small.runCommand(
      `for i in 1 2 3 4; do ${hog} & done; for j in $(jobs -p); do wait $j; echo "exit=$?"; done`,
      { timeoutMs: 20_000 },
    );
    const exits = r.stdout.trim().split('\n');
    expect(exits).toHaveLength(4);
    expect(exits).toContain('exit=137');
    expect(r.stderr).toMatch(
      /out of memory: the sandbox's memory limit \(268435456 bytes for all its processes\) killed \d process/,
    );
  }, 30_000);

  it('each command runs in its own cgroups, with the limits set, removed afterwards', async () => {
    const cgroups = detectCgroups();
    if ('reason' in cgroups) throw new Error(`this host should have cgroups: ${cgroups.reason}`);
    const mineNow = () => readdirSync(cgroups.parents.pids).filter((n) => n.startsWith(`cmd-${process.pid}-`));
    const running = mine.runCommand('sleep 1.5');
    const read = (c: 'memory' | 'pids' | 'cpu', name: string, file: string) =>
      readFileSync(path.join(cgroups.parents[c], name, file), 'utf8').trim();
    // The group is made first, then the command's first process joins it.
    await eventually(
      'one cgroup with processes',
      () => expect(mineNow().filter((n) => read('pids', n, 'cgroup.procs') !== '')).toHaveLength(1),
      { timeout: 1500, interval: 50 },
    );
    const name = mineNow()[0]!;
    expect(read('pids', name, 'cgroup.procs')).toMatch(/^\d+$/m);
    expect(read('pids', name, 'pids.max')).toBe('64');
    if (cgroups.version === 1) {
      expect(read('memory', name, 'memory.limit_in_bytes')).toBe(String(1024 * 1024 * 1024));
      expect(read('cpu', name, 'cpu.cfs_quota_us')).toBe('100000');
    } else {
      expect(read('memory', name, 'memory.max')).toBe(String(1024 * 1024 * 1024));
      expect(read('cpu', name, 'cpu.max')).toBe('100000 100000');
    }
    expect((await running).exit_code).toBe(0);
    expect(mineNow()).toEqual([]);
  });

  it('caps output and kills a flood', async () => {
    const started = Date.now();
    const r = await mine.runCommand('yes | head -c 50000000; echo done-marker');
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(64 * 1024 + 200);
    expect(r.stdout).toContain('[output truncated');
    expect(r.stdout).not.toContain('done-marker');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('limits file size and memory', async () => {
    const r = await mine.runCommand(
      'head -c 2000000 /dev/zero > big.bin; ls -l big.bin | cut -d" " -f5; ' +
        'python3 -c "x = bytearray(2 * 1024 ** 3)" 2>&1 | tail -1; rm -f big.bin',
    );
    expect(r.stdout).toMatch(/^1048576$/m);
    expect(r.stdout).toContain('MemoryError');
  });

  it('filling the workspace fills only its own disk', async () => {
    const quota = 64 * 1024 * 1024;
    const hostFreeBefore = statfsSync(mine.disk!.image).bavail;
    // Files of 1 MB each (the per-file limit), until the disk is full.
    const r = await mine.runCommand(
      'for i in $(seq 100); do head -c 1000000 /dev/zero > fill.$i || break; done; ls fill.* | wc -l; df -B1 --output=size . | tail -1',
    );
    expect(r.stderr).toContain('No space left on device');
    const [files, size] = r.stdout.trim().split('\n').map(Number);
    expect(files).toBeGreaterThan(40);
    expect(files).toBeLessThan(64);
    expect(size).toBeLessThanOrEqual(quota);
    // The host holds at most the image, and its disk did not fill.
    expect(statSync(mine.disk!.image).blocks * 512).toBeLessThanOrEqual(quota);
    expect(hostFreeBefore - statfsSync(mine.disk!.image).bavail).toBeLessThan(quota);
    await expect(mine.writeFile('more.txt', 'x'.repeat(100_000))).rejects.toMatchObject({
      code: 'ENOSPC',
      message: expect.stringContaining('disk quota is full'),
    });
    expect((await mine.runCommand('rm fill.* && echo freed')).stdout).toBe('freed\n');
    expect(await mine.writeFile('more.txt', 'x')).toMatchObject({ size_bytes: 1 });
  });

  it('without a disk image, the quota is checked before writes', async () => {
    const capped = sandboxHost(
      sandboxConfig({ SANDBOX_DISK_IMAGES: 'false', SANDBOX_DISK_BYTES: String(3 * 1024 * 1024) }),
    ).sandbox(a.orgId, a.agentId);
    expect(capped.disk).toBeUndefined();
    // One command can still go past it (the weakness of the fallback)…
    expect(
      (await capped.runCommand('for i in 1 2 3 4; do head -c 1000000 /dev/zero > f.$i; done; echo written')).stdout,
    ).toBe('written\n');
    // …then nothing grows until files are deleted.
    await expect(capped.writeFile('x.txt', 'x')).rejects.toMatchObject({
      code: 'EDQUOT',
      message: expect.stringContaining('over its disk quota'),
    });
    const blocked = await capped.runCommand('head -c 10 /dev/zero > more.bin; echo "exit=$?"; rm f.*; ls');
    expect(blocked.stdout).toBe('exit=153\nmore.bin\n');
    expect(blocked.stderr).toContain('[the workspace is over its disk quota');
    expect(await capped.writeFile('x.txt', 'x')).toMatchObject({ size_bytes: 1 });
  });

  it('a cancelled command is killed at once', async () => {
    const tag = uniqueTag();
    const controller = new AbortController();
    const started = Date.now();
    const running = mine.runCommand(`sleep 100.${tag}`, { signal: controller.signal, timeoutMs: 60_000 });
    await eventually('the command to run', () => expect(hostProcesses(`sleep 100.${tag}`).length).toBeGreaterThan(0), {
      interval: 50,
    });
    controller.abort(new Error('run cancelled'));
    await expect(running).rejects.toThrow('run cancelled');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]);
  });

  it('read_file caps what it returns, write_file what it accepts', async () => {
    await mine.runCommand('head -c 300000 /dev/zero | tr "\\0" a > large.txt; printf "\\xff\\xfe\\x00" > bin.dat');
    const large = await mine.readFile('large.txt', { maxBytes: 1000 });
    expect(large).toMatchObject({ size_bytes: 300000, truncated: true, encoding: 'utf-8' });
    expect(large.content.length).toBe(1000);
    expect(await mine.readFile('bin.dat')).toMatchObject({
      encoding: 'base64',
      content: Buffer.from([0xff, 0xfe, 0]).toString('base64'),
    });
    await expect(mine.writeFile('huge.txt', 'x'.repeat(1024 * 1024 + 1))).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await mine.runCommand('mkfifo pipe');
    await expect(mine.readFile('pipe')).rejects.toMatchObject({ code: 'NOT_A_FILE' });
  });
});
