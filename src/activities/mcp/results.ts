import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome } from '../../shared/run-workflow-types.ts';

/** Text kept of one result: the outcome goes into the workflow history and the conversation. */
const TEXT_LIMIT = 64 * 1024;
/** Embedded resources' text is kept shorter, and only so many blocks are described. */
const RESOURCE_TEXT_LIMIT = 8 * 1024;
const MAX_ATTACHMENTS = 20;

/**
 * A tool's result as the model sees it: its text, its structured content, and what else it
 * returned (images, audio, resources) described rather than inlined. A result the tool marked
 * `isError` is the tool's own failure: an error the model reads, never a retry.
 */
export function toolOutcome(result: CallToolResult, artifacts: ReadonlyMap<number, string> = new Map()): ToolOutcome {
  const blocks = result.content ?? [];
  const text = clip(
    blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n'),
  );
  if (result.isError)
    return { ok: false, error: { code: 'TOOL_ERROR', message: text || 'the tool reported an error' } };
  const attachments = blocks.flatMap((b, i) => {
    if (b.type === 'text') return [];
    const artifactId = artifacts.get(i);
    return [{ ...describeBlock(b), ...(artifactId ? { artifact_id: artifactId } : {}) }];
  });
  const structured = result.structuredContent && JSON.stringify(result.structuredContent);
  return {
    ok: true,
    output: {
      ...(text ? { text } : {}),
      ...(structured && structured.length <= TEXT_LIMIT ? { structured_content: result.structuredContent } : {}),
      ...(structured && structured.length > TEXT_LIMIT
        ? { structured_content_omitted: `${structured.length} characters, over ${TEXT_LIMIT}` }
        : {}),
      ...(attachments.length ? { attachments: attachments.slice(0, MAX_ATTACHMENTS) } : {}),
    },
  };
}

function describeBlock(block: Exclude<ContentBlock, { type: 'text' }>): Record<string, unknown> {
  switch (block.type) {
    case 'image':
    case 'audio':
      return { type: block.type, mime_type: block.mimeType, size_bytes: Math.floor((block.data.length * 3) / 4) };
    case 'resource': {
      const r = block.resource;
      return {
        type: 'resource',
        uri: r.uri,
        ...(r.mimeType ? { mime_type: r.mimeType } : {}),
        ...('text' in r && typeof r.text === 'string' ? { text: clip(r.text, RESOURCE_TEXT_LIMIT) } : {}),
        ...('blob' in r && typeof r.blob === 'string' ? { size_bytes: Math.floor((r.blob.length * 3) / 4) } : {}),
      };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.mimeType ? { mime_type: block.mimeType } : {}),
        ...(block.description ? { description: block.description } : {}),
      };
    default:
      return { type: (block as { type: string }).type };
  }
}

function clip(text: string, limit = TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (cut at ${limit} characters)`;
}
