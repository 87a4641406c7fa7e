/**
 * A seccomp filter for sandboxed commands, as the classic BPF program bubblewrap's
 * `--seccomp FD` installs right before it runs the command. It answers EPERM to the
 * system calls a sandbox never needs and that widen the kernel's attack surface or
 * undo the isolation: new namespaces (unshare, setns, clone with CLONE_NEW*), mounts,
 * ptrace and cross-process memory access, the kernel keyring, BPF, perf, module and
 * kexec loading, userfaultfd, io_uring. clone3 answers ENOSYS (its flags are behind a
 * pointer the filter cannot read), so the C library falls back to clone, which is
 * checked. System calls of another ABI (i386 or x32 on x86_64) are refused outright.
 */

/** The deny list by name; numbers per architecture below. */
const denied = [
  'unshare',
  'setns',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'open_by_handle_at',
  'name_to_handle_at',
  'swapon',
  'swapoff',
  'reboot',
  'acct',
  'quotactl',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
] as const;
type Denied = (typeof denied)[number];

interface Arch {
  /** AUDIT_ARCH_* as seccomp_data.arch reports it. */
  audit: number;
  numbers: Record<Denied | 'clone' | 'clone3', number>;
  /** x86_64: numbers with this bit are the x32 ABI. */
  x32Bit?: number;
}

/** Shared by every architecture since Linux 5.1. */
const unified = {
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  clone3: 435,
};

const arches: Partial<Record<NodeJS.Architecture, Arch>> = {
  x64: {
    audit: 0xc000003e,
    x32Bit: 0x40000000,
    numbers: {
      ...unified,
      unshare: 272,
      setns: 308,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      acct: 163,
      quotactl: 179,
      clone: 56,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      ...unified,
      unshare: 97,
      setns: 268,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      acct: 89,
      quotactl: 60,
      clone: 220,
    },
  },
};

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME. */
const CLONE_NEW_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;

// Classic BPF opcodes and seccomp_data offsets.
const LD_ABS_W = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const JSET = 0x45;
const RET = 0x06;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16; // little-endian: the low 32 bits of args[0]

type Label = 'deny' | 'enosys' | 'clone' | 'next';
type Op = { code: number; k: number; jt?: Label; jf?: Label; label?: Label };

/** The filter for this machine's architecture, or undefined when we have no syscall table for it. */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const a = arches[arch];
  if (!a) return undefined;
  const ops: Op[] = [
    { code: LD_ABS_W, k: OFFSET_ARCH },
    { code: JEQ, k: a.audit, jt: 'next', jf: 'deny' },
    { code: LD_ABS_W, k: OFFSET_NR },
    ...(a.x32Bit ? [{ code: JGE, k: a.x32Bit, jt: 'deny', jf: 'next' } as Op] : []),
    ...denied.map((name): Op => ({ code: JEQ, k: a.numbers[name], jt: 'deny', jf: 'next' })),
    { code: JEQ, k: a.numbers.clone, jt: 'clone', jf: 'next' },
    { code: JEQ, k: a.numbers.clone3, jt: 'enosys', jf: 'next' },
    { code: RET, k: RET_ALLOW },
    { code: LD_ABS_W, k: OFFSET_ARG0_LOW, label: 'clone' },
    { code: JSET, k: CLONE_NEW_FLAGS, jt: 'deny', jf: 'next' },
    { code: RET, k: RET_ALLOW },
    { code: RET, k: retErrno(ENOSYS), label: 'enosys' },
    { code: RET, k: retErrno(EPERM), label: 'deny' },
  ];
  const at = (label: Label, from: number) => {
    if (label === 'next') return 0;
    const offset = ops.findIndex((op) => op.label === label) - from - 1;
    if (offset < 0 || offset > 255) throw new Error(`seccomp jump to ${label} out of range`);
    return offset;
  };
  // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }, native (little-endian) byte order.
  const program = Buffer.alloc(ops.length * 8);
  ops.forEach((op, i) => {
    program.writeUInt16LE(op.code, i * 8);
    program.writeUInt8(op.jt ? at(op.jt, i) : 0, i * 8 + 2);
    program.writeUInt8(op.jf ? at(op.jf, i) : 0, i * 8 + 3);
    program.writeUInt32LE(op.k >>> 0, i * 8 + 4);
  });
  return program;
}
