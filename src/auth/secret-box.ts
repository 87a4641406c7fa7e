import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The sealed format's first byte, so a later format can be told apart. */
const VERSION = 1;

export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
}

/**
 * Seals org secrets with AES-256-GCM under a key derived from SECRETS_KEY. The org and the
 * secret's name are the additional data: a sealed value copied to another org or name does not open.
 */
export function createSecretBox(secretsKey: string) {
  const key = createHash('sha256').update(`agent-run-service/org-secrets\0${secretsKey}`).digest();
  const boundTo = (orgId: string, name: string) => Buffer.from(`${orgId}\0${name}`);
  return {
    seal(orgId: string, name: string, value: string): Buffer {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, nonce).setAAD(boundTo(orgId, name));
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.of(VERSION), nonce, cipher.getAuthTag(), body]);
    },

    open(orgId: string, name: string, sealed: Uint8Array): string {
      const bytes = Buffer.from(sealed);
      if (bytes[0] !== VERSION || bytes.length < 1 + NONCE_BYTES + TAG_BYTES)
        throw new SecretUnreadableError(`secret ${name} is not in a format this service reads`);
      const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
      const tag = bytes.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES);
      try {
        const decipher = createDecipheriv(ALGORITHM, key, nonce).setAAD(boundTo(orgId, name)).setAuthTag(tag);
        return Buffer.concat([decipher.update(bytes.subarray(1 + NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretUnreadableError(`secret ${name} does not open with this SECRETS_KEY (was the key changed?)`);
      }
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
