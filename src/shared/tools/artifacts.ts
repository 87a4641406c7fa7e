import { z } from 'zod';
import { defineTool } from './definition.ts';

export const artifactKinds = ['chart', 'table', 'document', 'image', 'code', 'diagram'] as const;
export type ArtifactKind = (typeof artifactKinds)[number];

/** Largest artifact content, as serialized JSON. */
export const ARTIFACT_CONTENT_MAX_BYTES = 1024 * 1024;
export const ARTIFACT_TITLE_MAX = 200;

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const bodyText = z.string().min(1);

/**
 * The content of each kind. The tools check content against these (not the tool's
 * input schema) so a wrong shape becomes an ARTIFACT_ERROR event the UI can show,
 * and an error message the model can act on.
 */
export const artifactContentSchemas = {
  table: z
    .object({
      columns: z.array(z.string().min(1).max(200)).min(1).max(200),
      rows: z.array(z.array(cell)).max(100_000),
      caption: z.string().max(1000).optional(),
    })
    .refine((t) => t.rows.every((r) => r.length === t.columns.length), {
      message: 'every row needs one cell per column',
      path: ['rows'],
    }),
  chart: z
    .object({
      chart_type: z.enum(['bar', 'line', 'area', 'pie', 'scatter']),
      data: z.array(z.record(z.string(), cell)).min(1).max(100_000),
      x: z.string().min(1).describe('Key of the category or x value in each data point'),
      y: z
        .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(20)])
        .describe('Key(s) of the numeric series'),
      x_label: z.string().max(200).optional(),
      y_label: z.string().max(200).optional(),
    })
    .refine((c) => c.data.every((p) => c.x in p), { message: 'every data point needs the x key', path: ['data'] })
    .refine((c) => c.data.every((p) => [c.y].flat().every((k) => typeof p[k] === 'number' || p[k] === null)), {
      message: 'every data point needs a number (or null) for each y key',
      path: ['data'],
    }),
  document: z.object({ format: z.enum(['markdown', 'html', 'text']), body: bodyText }),
  image: z.union([
    z.object({
      mime_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
      data_base64: z.base64().min(4),
      alt: z.string().max(1000).optional(),
    }),
    z.object({
      mime_type: z.literal('image/svg+xml'),
      svg: z.string().regex(/<svg[\s>]/i, 'must be an <svg> document'),
      alt: z.string().max(1000).optional(),
    }),
  ]),
  code: z.object({ language: z.string().min(1).max(50), source: bodyText, filename: z.string().max(255).optional() }),
  diagram: z.object({ syntax: z.enum(['mermaid', 'graphviz', 'plantuml']), source: bodyText }),
} satisfies Record<ArtifactKind, z.ZodType>;

const CONTENT_SHAPES =
  'Content by kind: table {columns: string[], rows: cell[][], caption?}; ' +
  'chart {chart_type: bar|line|area|pie|scatter, data: [{...}], x: key, y: key or keys (numbers), x_label?, y_label?}; ' +
  'document {format: markdown|html|text, body}; image {mime_type: image/png|jpeg|gif|webp, data_base64, alt?} or ' +
  '{mime_type: image/svg+xml, svg, alt?}; code {language, source, filename?}; diagram {syntax: mermaid|graphviz|plantuml, source}.';

const content = z.record(z.string(), z.unknown()).describe(`Shaped by kind, at most 1 MiB as JSON. ${CONTENT_SHAPES}`);
const title = z.string().trim().min(1).max(ARTIFACT_TITLE_MAX);

export const createArtifactTool = defineTool({
  name: 'create_artifact',
  kind: 'activity',
  description:
    'Show the user a rich artifact beside the conversation: a chart, table, document, image, code or diagram. ' +
    'Returns {artifact_id, version}; change it later with update_artifact. The content shape depends on the kind (see content).',
  input: z.object({ kind: z.enum(artifactKinds), title, content }),
});

export const updateArtifactTool = defineTool({
  name: 'update_artifact',
  kind: 'activity',
  description:
    'Change an artifact of this conversation. mode "update" edits the current version in place (fixes, small edits); ' +
    'mode "revise" makes a new version (a reworked result). Give the full new content (same kind) and/or a new title. ' +
    'Returns {artifact_id, version}.',
  input: z
    .object({
      artifact_id: z.string().min(1).max(100),
      mode: z.enum(['update', 'revise']).default('update'),
      title: title.optional(),
      content: content.optional(),
    })
    .refine((i) => i.title !== undefined || i.content !== undefined, {
      message: 'give content, title or both',
      path: ['content'],
    }),
});

export const artifactTools = [createArtifactTool, updateArtifactTool];
