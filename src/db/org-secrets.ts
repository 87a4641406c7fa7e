import type { DbOrTx } from './client.ts';

export interface OrgSecretListing {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Creates or replaces the org's secret of that name; true when it was new. */
export async function putOrgSecret(db: DbOrTx, orgId: string, name: string, value: Uint8Array): Promise<boolean> {
  const sealed = new Uint8Array(value); // Prisma takes bytes over a plain ArrayBuffer
  const before = await db.orgSecret.findUnique({ where: { orgId_name: { orgId, name } }, select: { name: true } });
  await db.orgSecret.upsert({
    where: { orgId_name: { orgId, name } },
    create: { orgId, name, sealed },
    update: { sealed },
  });
  return before === null;
}

/** The org's secrets by name, without their values. */
export async function listOrgSecrets(db: DbOrTx, orgId: string): Promise<OrgSecretListing[]> {
  return db.orgSecret.findMany({
    where: { orgId },
    select: { name: true, createdAt: true, updatedAt: true },
    orderBy: { name: 'asc' },
  });
}

export async function orgSecretExists(db: DbOrTx, orgId: string, name: string): Promise<boolean> {
  return (await db.orgSecret.count({ where: { orgId, name } })) > 0;
}

/** The sealed value (src/auth/secret-box.ts opens it), or null. */
export async function findSealedOrgSecret(db: DbOrTx, orgId: string, name: string): Promise<Uint8Array | null> {
  return (
    (await db.orgSecret.findUnique({ where: { orgId_name: { orgId, name } }, select: { sealed: true } }))?.sealed ??
    null
  );
}

/** Deletes the secret; false when there was none. */
export async function deleteOrgSecret(db: DbOrTx, orgId: string, name: string): Promise<boolean> {
  return (await db.orgSecret.deleteMany({ where: { orgId, name } })).count > 0;
}
