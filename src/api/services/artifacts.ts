import { findArtifact, listArtifacts, type ArtifactRow } from '../../db/artifacts.ts';
import type { Db } from '../../db/client.ts';
import { notFound } from '../../shared/domain-error.ts';
import { decodeKeysetCursor, keysetPage } from '../cursors.ts';

export function toArtifactRecord(a: ArtifactRow) {
  return {
    id: a.id,
    task_id: a.taskId,
    run_id: a.runId,
    kind: a.kind,
    title: a.title,
    version: a.version,
    status: a.status,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
    ...(a.content === undefined ? {} : { content: a.content }),
  };
}

export interface ArtifactListQuery {
  limit: number;
  cursor?: string;
  run_id?: string;
  kind?: string;
  include_content?: 'true' | 'false';
}

/** One page of a task's artifacts, newest first (created_at, then id); content only when asked for. */
export async function artifactPage(db: Db, taskId: string, query: ArtifactListQuery) {
  const after = query.cursor === undefined ? undefined : decodeKeysetCursor(taskId, query.cursor);
  const rows = await listArtifacts(db, taskId, {
    runId: query.run_id,
    kind: query.kind,
    after,
    includeContent: query.include_content === 'true',
    limit: query.limit + 1,
  });
  const page = keysetPage(taskId, rows, query.limit, (a) => a);
  return {
    task_id: taskId,
    artifacts: page.items.map(toArtifactRecord),
    next_cursor: page.nextCursor,
    count: page.items.length,
  };
}

/** An artifact of this task; one of another task is 404 like an unknown one. */
export async function loadTaskArtifact(db: Db, taskId: string, artifactId: string) {
  const artifact = await findArtifact(db, artifactId);
  if (!artifact || artifact.taskId !== taskId) throw notFound(`Artifact ${artifactId} not found in task ${taskId}`);
  return artifact;
}
