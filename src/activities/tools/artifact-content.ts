import type { RunEventInput } from '../../shared/events.ts';
import { formatIssues } from '../../shared/zod-issues.ts';
import { ARTIFACT_CONTENT_MAX_BYTES, artifactContentSchemas, type ArtifactKind } from '../../shared/tools/artifacts.ts';

/** Artifact events carry the content inline up to this size; larger content is fetched from `url`. */
export const INLINE_CONTENT_MAX_BYTES = 16 * 1024;
/** Content above this size gets an ARTIFACT_PROGRESS event between CREATED/UPDATED/REVISED and COMPLETED. */
export const PROGRESS_MIN_BYTES = 64 * 1024;

export type CheckedContent =
  | { ok: true; content: Record<string, unknown>; bytes: number }
  | { ok: false; code: 'INVALID_ARTIFACT_CONTENT' | 'ARTIFACT_TOO_LARGE'; message: string };

/** Checks content against its kind's shape and the size cap; unknown keys are dropped, not stored. */
export function checkContent(kind: ArtifactKind, content: unknown): CheckedContent {
  const parsed = artifactContentSchemas[kind].safeParse(content);
  if (!parsed.success) {
    const problems = formatIssues(parsed.error.issues, { root: 'content' });
    return {
      ok: false,
      code: 'INVALID_ARTIFACT_CONTENT',
      message: `Invalid ${kind} content: ${problems.slice(0, 5).join('; ')}`,
    };
  }
  const bytes = Buffer.byteLength(JSON.stringify(parsed.data));
  if (bytes > ARTIFACT_CONTENT_MAX_BYTES) {
    return {
      ok: false,
      code: 'ARTIFACT_TOO_LARGE',
      message: `The ${kind} content is ${bytes} bytes as JSON; the limit is ${ARTIFACT_CONTENT_MAX_BYTES}`,
    };
  }
  return { ok: true, content: parsed.data as Record<string, unknown>, bytes };
}

export const artifactUrl = (taskId: string, artifactId: string) => `/api/tasks/${taskId}/artifacts/${artifactId}`;

type ArtifactEventName =
  | 'ARTIFACT_CREATED'
  | 'ARTIFACT_UPDATED'
  | 'ARTIFACT_REVISED'
  | 'ARTIFACT_COMPLETED'
  | 'ARTIFACT_PROGRESS'
  | 'ARTIFACT_ERROR';

export function artifactEvent(name: ArtifactEventName, data: Record<string, unknown>): RunEventInput {
  return { type: 'CUSTOM', name, data };
}

/** What CREATED, UPDATED and REVISED say about the artifact: enough for a UI to render it when the content is small. */
export function describeArtifact(
  a: { id: string; taskId: string; kind: string; title: string; version: number },
  content: Record<string, unknown>,
  bytes: number,
) {
  return {
    artifact_id: a.id,
    kind: a.kind,
    title: a.title,
    version: a.version,
    status: 'draft',
    size_bytes: bytes,
    url: artifactUrl(a.taskId, a.id),
    ...(bytes <= INLINE_CONTENT_MAX_BYTES ? { content } : {}),
  };
}

/** Emitted only for large content, once it is stored and before COMPLETED. */
export function progressEvents(artifactId: string, version: number, bytes: number): RunEventInput[] {
  if (bytes < PROGRESS_MIN_BYTES) return [];
  return [
    artifactEvent('ARTIFACT_PROGRESS', {
      artifact_id: artifactId,
      version,
      stage: 'stored',
      percent: 100,
      bytes_done: bytes,
      bytes_total: bytes,
    }),
  ];
}
