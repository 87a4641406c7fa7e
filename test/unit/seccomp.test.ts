import { describe, expect, it } from 'vitest';
import { seccompFilter } from '../../src/sandbox/seccomp.ts';

/**
 * The filter's logic, run by a small classic-BPF interpreter over made-up
 * seccomp_data, for both architectures (the sandbox tests run it in the kernel,
 * on this machine's architecture only).
 */
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

function evaluate(program: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  const packet = Buffer.alloc(64);
  packet.writeInt32LE(data.nr, 0);
  packet.writeUInt32LE(data.arch, 4);
  packet.writeUInt32LE(data.arg0 ?? 0, 16);
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = packet.readUInt32LE(k);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`unknown opcode ${code}`);
  }
  throw new Error('fell off the end of the program');
}

const cases = {
  x64: {
    arch: 0xc000003e,
    unshare: 272,
    mount: 165,
    ptrace: 101,
    bpf: 321,
    clone: 56,
    read: 0,
    execve: 59,
    clone3: 435,
  },
  arm64: {
    arch: 0xc00000b7,
    unshare: 97,
    mount: 40,
    ptrace: 117,
    bpf: 280,
    clone: 220,
    read: 63,
    execve: 221,
    clone3: 435,
  },
} as const;

describe('seccomp filter', () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: refuses the dangerous calls, allows the ordinary ones`, () => {
      const program = seccompFilter(name as NodeJS.Architecture)!;
      const run = (nr: number, arg0 = 0) => evaluate(program, { nr, arch: c.arch, arg0 });
      expect([c.unshare, c.mount, c.ptrace, c.bpf].map((nr) => run(nr))).toEqual([EPERM, EPERM, EPERM, EPERM]);
      expect([run(c.read), run(c.execve)]).toEqual([ALLOW, ALLOW]);
      // fork-like clone (SIGCHLD | CLONE_VM…) is fine; any CLONE_NEW* flag is not.
      expect(run(c.clone, 0x01200011)).toBe(ALLOW);
      expect(run(c.clone, 0x10000000)).toBe(EPERM); // CLONE_NEWUSER
      expect(run(c.clone, 0x40000000 | 0x11)).toBe(EPERM); // CLONE_NEWNET
      expect(run(c.clone3)).toBe(ENOSYS);
      expect(evaluate(program, { nr: c.read, arch: 0x40000003 })).toBe(EPERM); // i386
    });
  }

  it('x64: refuses the x32 ABI; no filter for an architecture without a table', () => {
    expect(evaluate(seccompFilter('x64')!, { nr: 0x40000000, arch: cases.x64.arch })).toBe(EPERM);
    expect(seccompFilter('ia32')).toBeUndefined();
  });
});
