import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { completeArtifact, insertDraftArtifactOnce } from '../../db/artifacts.ts';
import type { Db } from '../../db/client.ts';
import type { RunEventInput } from '../../shared/events.ts';
import { ARTIFACT_TITLE_MAX, type ArtifactKind } from '../../shared/tools/artifacts.ts';
import { artifactEvent, checkContent, describeArtifact, progressEvents } from '../tools/artifact-content.ts';
import { idForToolCall } from '../tools/call-ids.ts';

interface ResultCall {
  runId: string;
  taskId: string;
  toolCallId: string;
  name: string;
}

/** What of a result block an artifact can hold: images (inline or as a blob resource) and text resources. */
interface Storable {
  kind: Extract<ArtifactKind, 'image' | 'document'>;
  title: string;
  content: unknown;
}

const DOCUMENT_FORMATS: Record<string, 'markdown' | 'html'> = { 'text/markdown': 'markdown', 'text/html': 'html' };

function storable(block: ContentBlock, name: string): Storable | undefined {
  if (block.type === 'image')
    return { kind: 'image', title: `${name} image`, content: { mime_type: block.mimeType, data_base64: block.data } };
  if (block.type !== 'resource') return undefined;
  const r = block.resource;
  if ('text' in r && typeof r.text === 'string' && r.text.length > 0) {
    const format = DOCUMENT_FORMATS[r.mimeType ?? ''] ?? 'text';
    return { kind: 'document', title: `${name} resource ${r.uri}`, content: { format, body: r.text } };
  }
  if ('blob' in r && typeof r.blob === 'string' && r.mimeType?.startsWith('image/'))
    return { kind: 'image', title: `${name} image`, content: { mime_type: r.mimeType, data_base64: r.blob } };
  return undefined; // other binary resources are described to the model, not stored
}

/**
 * Images and embedded resources a tool returned become artifacts of the run: the user sees them
 * beside the conversation, the model reads their ids (and a resource's text, clipped), never the
 * bytes. Ids and event keys come from the call and the block's place in the result, so a retried
 * attempt stores nothing twice. Answers block index → artifact id; a block the artifact store
 * refuses (type, size) is only described.
 */
export async function storeResultArtifacts(
  db: Db,
  call: ResultCall,
  result: CallToolResult,
  emit: (events: RunEventInput[], key: string) => Promise<unknown>,
): Promise<Map<number, string>> {
  const stored = new Map<number, string>();
  let images = 0;
  for (const [i, block] of (result.content ?? []).entries()) {
    const found = storable(block, call.name);
    if (!found) continue;
    const checked = checkContent(found.kind, found.content);
    if (!checked.ok) continue;
    const part = block.type; // image or resource
    const artifact = {
      id: idForToolCall('art', { runId: call.runId, toolCallId: `${call.toolCallId}:${part}:${i}` }),
      runId: call.runId,
      taskId: call.taskId,
      kind: found.kind,
      title: (found.kind === 'image' ? `${found.title} ${++images}` : found.title).slice(0, ARTIFACT_TITLE_MAX),
      version: 1,
    };
    await insertDraftArtifactOnce(db, { ...artifact, content: checked.content });
    const key = `tool:${call.toolCallId}:${part}:${i}`;
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
