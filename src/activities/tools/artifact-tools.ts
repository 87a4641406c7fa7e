import { isDeepStrictEqual } from 'node:util';
import { completeArtifact, editArtifactLocked, findArtifact, insertDraftArtifactOnce } from '../../db/artifacts.ts';
import type { ArtifactKind } from '../../shared/tools/artifacts.ts';
import { artifactEvent, checkContent, describeArtifact, progressEvents } from './artifact-content.ts';
import { idForToolCall } from './call-ids.ts';
import { ToolError } from '../../shared/tools/tool-error.ts';
import { implementTool, type ToolContext } from './types.ts';

/*
 * Rich artifacts. Each call emits its lifecycle as CUSTOM events with fixed keys
 * per call ('created', 'completed' …): the dispatcher scopes keys by tool call,
 * so a retried attempt re-emits nothing that was already written.
 *   create: ARTIFACT_CREATED → [ARTIFACT_PROGRESS] → ARTIFACT_COMPLETED
 *   update: ARTIFACT_UPDATED (same version) or ARTIFACT_REVISED (version + 1) → [ARTIFACT_PROGRESS] → ARTIFACT_COMPLETED;
 *           an edit that changes nothing is ARTIFACT_UPDATED with `changed: []` and keeps the version
 *   bad content: ARTIFACT_ERROR, and the model gets a ToolError; nothing is stored.
 */

async function refuse(ctx: ToolContext, data: Record<string, unknown>, code: string, message: string): Promise<never> {
  await ctx.emit([artifactEvent('ARTIFACT_ERROR', { ...data, code, message })], 'error');
  throw new ToolError(message, code);
}

async function complete(ctx: ToolContext, id: string, version: number): Promise<void> {
  await completeArtifact(ctx.deps.db, id);
  await ctx.emit([artifactEvent('ARTIFACT_COMPLETED', { artifact_id: id, version, status: 'completed' })], 'completed');
}

export const createArtifact = implementTool<{ kind: ArtifactKind; title: string; content: Record<string, unknown> }>(
  'create_artifact',
  async (input, ctx) => {
    const checked = checkContent(input.kind, input.content);
    if (!checked.ok)
      return refuse(ctx, { artifact_id: null, kind: input.kind, title: input.title }, checked.code, checked.message);
    const artifact = {
      id: idForToolCall('art', ctx),
      runId: ctx.runId,
      taskId: ctx.taskId,
      kind: input.kind,
      title: input.title,
      version: 1,
    };
    // The id comes from the tool call, so a retried attempt skips the row the first one stored.
    await insertDraftArtifactOnce(ctx.deps.db, { ...artifact, content: checked.content });
    await ctx.emit(
      [
        artifactEvent('ARTIFACT_CREATED', describeArtifact(artifact, checked.content, checked.bytes)),
        ...progressEvents(artifact.id, 1, checked.bytes),
      ],
      'created',
    );
    await complete(ctx, artifact.id, 1);
    return { artifact_id: artifact.id, version: 1, status: 'completed' };
  },
);

interface UpdateInput {
  artifact_id: string;
  mode: 'update' | 'revise';
  title?: string;
  content?: Record<string, unknown>;
}

export const updateArtifact = implementTool<UpdateInput>('update_artifact', async (input, ctx) => {
  const db = ctx.deps.db;
  const current = await findArtifact(db, input.artifact_id);
  // Another task's artifact is reported exactly like a missing one: the model learns nothing about it.
  if (!current || current.taskId !== ctx.taskId)
    throw new ToolError(`No artifact ${input.artifact_id} in this conversation`, 'ARTIFACT_NOT_FOUND');
  const about = { artifact_id: current.id, kind: current.kind, title: current.title, version: current.version };
  const checked = checkContent(current.kind as ArtifactKind, input.content ?? current.content);
  if (!checked.ok) return refuse(ctx, about, checked.code, checked.message);

  const title = input.title ?? current.title;
  const { row, written } = await editArtifactLocked(db, current.id, (locked) =>
    // Already as asked: nothing to write.
    locked.title === title && isDeepStrictEqual(locked.content, checked.content)
      ? null
      : { title, content: checked.content, version: input.mode === 'revise' ? locked.version + 1 : locked.version },
  );
  // Found as asked, still a draft: a retried attempt of this call finds its own write. Completed: a no-op edit.
  const applied = written || row.status === 'draft';

  const revised = applied && input.mode === 'revise';
  const changed = applied
    ? [...(input.title !== undefined ? ['title'] : []), ...(input.content !== undefined ? ['content'] : [])]
    : [];
  const data = {
    ...describeArtifact(row, checked.content, checked.bytes),
    changed,
    ...(revised ? { previous_version: row.version - 1 } : {}),
  };
  // One key for UPDATED and REVISED: whichever a first attempt wrote is the one a retry finds.
  await ctx.emit(
    [
      artifactEvent(revised ? 'ARTIFACT_REVISED' : 'ARTIFACT_UPDATED', data),
      ...progressEvents(row.id, row.version, checked.bytes),
    ],
    'changed',
  );
  await complete(ctx, row.id, row.version);
  // The same answer for a first attempt and its retry, whatever the retry found.
  return { artifact_id: row.id, version: row.version, status: 'completed' };
});

export const artifactToolImplementations = [createArtifact, updateArtifact];
