import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Parts of the host /etc that ordinary programs need: the dynamic linker's cache,
 * alternatives (awk, editor…), login profile, TLS roots, time zone, MIME and
 * magic databases, interpreter configs. Never the whole /etc: it holds the host's
 * users, shadow files, service configs and credentials (npmrc, pip.conf, ssh, environment).
 */
const etcAllowed = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'debian_version',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'perl',
  'profile',
  'profile.d',
  'protocols',
  'services',
  'shells',
  'ssl',
  'terminfo',
  'timezone',
  'xml',
  'sgml',
  'fonts',
];
const etcAllowedPatterns = [/^python3(\.\d+)?$/, /^java-\d+-openjdk$/];

/** Top-level system directories; on merged-/usr hosts they are symlinks into /usr and are recreated as such. */
const systemDirs = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** bwrap arguments that show the host's system files read-only. Computed once per worker process. */
export function systemMountArgs(root = '/'): string[] {
  const args = ['--ro-bind', path.join(root, 'usr'), '/usr'];
  for (const name of systemDirs) {
    const host = path.join(root, name);
    const stat = lstatOrUndefined(host);
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(host), `/${name}`);
    else if (stat.isDirectory()) args.push('--ro-bind', host, `/${name}`);
  }
  args.push('--perms', '0755', '--dir', '/etc');
  const etc = path.join(root, 'etc');
  const entries = existsSync(etc) ? readdirSync(etc).sort() : [];
  for (const name of entries) {
    if (!etcAllowed.includes(name) && !etcAllowedPatterns.some((p) => p.test(name))) continue;
    // A dangling symlink cannot be bound; skip it rather than fail every command.
    if (!existsSync(path.join(etc, name))) continue;
    args.push('--ro-bind', path.join(etc, name), `/etc/${name}`);
  }
  return args;
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
