import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { completeArtifact, insertDraftArtifactOnce } from '../../db/artifacts.ts';
import type { Db } from '../../db/client.ts';
import type { RunEventInput } from '../../shared/events.ts';
import { artifactEvent, checkContent, describeArtifact, progressEvents } from '../tools/artifact-content.ts';
import { idForToolCall } from '../tools/call-ids.ts';

interface ImageCall {
  runId: string;
  taskId: string;
  toolCallId: string;
  name: string;
}

/**
 * Images a tool returned become image artifacts of the run (the user sees them beside the
 * conversation; the model reads their ids, never their bytes). Ids and event keys come from the
 * call and the block's place in the result, so a retried attempt stores nothing twice.
 * Answers block index → artifact id; an image the artifact store refuses (type, size) is only described.
 */
export async function storeImageArtifacts(
  db: Db,
  call: ImageCall,
  result: CallToolResult,
  emit: (events: RunEventInput[], key: string) => Promise<unknown>,
): Promise<Map<number, string>> {
  const stored = new Map<number, string>();
  for (const [i, block] of (result.content ?? []).entries()) {
    if (block.type !== 'image') continue;
    const checked = checkContent('image', { mime_type: block.mimeType, data_base64: block.data });
    if (!checked.ok) continue;
    const artifact = {
      id: idForToolCall('art', { runId: call.runId, toolCallId: `${call.toolCallId}:image:${i}` }),
      runId: call.runId,
      taskId: call.taskId,
      kind: 'image',
      title: `${call.name} image ${stored.size + 1}`,
      version: 1,
    };
    await insertDraftArtifactOnce(db, { ...artifact, content: checked.content });
    const key = `tool:${call.toolCallId}:image:${i}`;
    await emit(
      [
        artifactEvent('ARTIFACT_CREATED', describeArtifact(artifact, checked.content, checked.bytes)),
        ...progressEvents(artifact.id, 1, checked.bytes),
      ],
      `${key}:created`,
    );
    await completeArtifact(db, artifact.id);
    await emit(
      [artifactEvent('ARTIFACT_COMPLETED', { artifact_id: artifact.id, version: 1, status: 'completed' })],
      `${key}:completed`,
    );
    stored.set(i, artifact.id);
  }
  return stored;
}
