/** Identifiers are a typed prefix plus 128 random bits, e.g. `run_3f9c…`. */
export type IdPrefix =
  | 'org'
  | 'usr'
  | 'agt'
  | 'key'
  | 'task'
  | 'run'
  | 'msg'
  | 'cmt'
  | 'mem'
  | 'art'
  | 'req'
  | 'apv'
  | 'grt'
  | 'snap'
  | 'whs'
  | 'flw'
  | 'wgk';

export function newId(prefix: IdPrefix): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `${prefix}_${hex}`;
}
