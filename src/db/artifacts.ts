import type { Artifact, Prisma } from '../generated/prisma/client.ts';
import type { Db } from './client.ts';
import { newestFirst } from './order.ts';

export type { Artifact };

/** An artifact as listed: its content only when asked for. */
export type ArtifactRow = Omit<Artifact, 'content'> & { content?: Artifact['content'] };

export interface ArtifactFilter {
  runId?: string;
  kind?: string;
  /** Keyset position: the page continues after this artifact (newest-first order). */
  after?: { createdAt: Date; id: string };
  includeContent: boolean;
  limit: number;
}

/** A task's artifacts, newest first (created_at, then id). */
export async function listArtifacts(db: Db, taskId: string, filter: ArtifactFilter): Promise<ArtifactRow[]> {
  const { after } = filter;
  return db.artifact.findMany({
    where: {
      taskId,
      ...(filter.runId === undefined ? {} : { runId: filter.runId }),
      ...(filter.kind === undefined ? {} : { kind: filter.kind }),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: newestFirst,
    take: filter.limit,
    omit: { content: !filter.includeContent },
  });
}

export async function findArtifact(db: Db, artifactId: string): Promise<Artifact | null> {
  return db.artifact.findUnique({ where: { id: artifactId } });
}

export interface NewArtifact {
  id: string;
  runId: string;
  taskId: string;
  kind: string;
  title: string;
  version: number;
  content: Record<string, unknown>;
}

/** Stores the artifact as a draft unless a row with its id exists (then stores nothing). */
export async function insertDraftArtifactOnce(db: Db, artifact: NewArtifact): Promise<void> {
  await db.artifact.createMany({
    data: [{ ...artifact, content: artifact.content as Prisma.InputJsonObject, status: 'draft' }],
    skipDuplicates: true,
  });
}

/** A draft becomes completed; an artifact already completed stays as it is. */
export async function completeArtifact(db: Db, artifactId: string): Promise<void> {
  await db.artifact.updateMany({ where: { id: artifactId, status: 'draft' }, data: { status: 'completed' } });
}

export type ArtifactEdit = Pick<NewArtifact, 'title' | 'content' | 'version'>;

/**
 * Changes an artifact under its row lock, so two calls changing it at once cannot both
 * read version n and both write n + 1. `edit` gets the locked row and returns what to
 * write (the artifact then becomes a draft again), or null to write nothing. Returns the
 * row after, and whether it was written.
 */
export async function editArtifactLocked(
  db: Db,
  artifactId: string,
  edit: (locked: Artifact) => ArtifactEdit | null,
): Promise<{ row: Artifact; written: boolean }> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM artifacts WHERE id = ${artifactId} FOR UPDATE`;
    const locked = (await tx.artifact.findUnique({ where: { id: artifactId } }))!;
    const change = edit(locked);
    if (!change) return { row: locked, written: false };
    const data = { ...change, content: change.content as Prisma.InputJsonObject, status: 'draft' };
    return { row: await tx.artifact.update({ where: { id: artifactId }, data }), written: true };
  });
}
