import type { Artifact } from '../generated/prisma/client.ts';
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
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    },
    orderBy: newestFirst,
    take: filter.limit,
    omit: { content: !filter.includeContent },
  });
}

export async function findArtifact(db: Db, artifactId: string): Promise<Artifact | null> {
  return db.artifact.findUnique({ where: { id: artifactId } });
}
