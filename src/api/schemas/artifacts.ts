import { z } from 'zod';
import { pageLimit } from './common.ts';
import { artifactKinds } from '../../shared/tools/artifacts.ts';

/** Page size of GET /api/tasks/{task_id}/artifacts when `limit` is not given, and its largest value. */
export const ARTIFACT_PAGE_DEFAULT = 50;
export const ARTIFACT_PAGE_MAX = 200;

export const artifactListParams = z.object({ task_id: z.string().min(1).max(100) });
export const artifactParams = artifactListParams.extend({ artifact_id: z.string().min(1).max(100) });

export const artifactListQuery = z.object({
  limit: pageLimit(ARTIFACT_PAGE_MAX, ARTIFACT_PAGE_DEFAULT).describe(
    `Page size, 1..${ARTIFACT_PAGE_MAX} (default ${ARTIFACT_PAGE_DEFAULT})`,
  ),
  cursor: z
    .string()
    .optional()
    .describe('Opaque: the `next_cursor` of the previous page; omit for the newest artifacts'),
  run_id: z.string().min(1).max(100).optional().describe('Only artifacts created by this run of the task'),
  kind: z.enum(artifactKinds).optional().describe('Only artifacts of this kind'),
  include_content: z
    .enum(['true', 'false'])
    .optional()
    .describe("`true` adds each artifact's `content` (default `false`: metadata only)"),
});

const artifactFields = {
  id: z.string(),
  task_id: z.string(),
  run_id: z.string().describe('The run that created it (later runs of the task may update it)'),
  kind: z.enum(artifactKinds),
  title: z.string(),
  version: z.number().int().describe('1 when created; each `revise` adds 1, an in-place `update` keeps it'),
  status: z
    .enum(['draft', 'completed', 'error'])
    .describe(
      'draft while a tool call is writing it, completed once ARTIFACT_COMPLETED was emitted; error is reserved (a failed change leaves the artifact as it was)',
    ),
  created_at: z.string().describe('ISO 8601 UTC'),
  updated_at: z.string().describe('ISO 8601 UTC'),
};

const contentSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'Shaped by kind: table {columns, rows, caption?}; chart {chart_type, data, x, y, x_label?, y_label?}; ' +
      'document {format: markdown|html|text, body}; image {mime_type, data_base64, alt?} or {mime_type: image/svg+xml, svg, alt?}; ' +
      'code {language, source, filename?}; diagram {syntax: mermaid|graphviz|plantuml, source}',
  );

export const artifactSchema = z.object({ ...artifactFields, content: contentSchema }).meta({ id: 'Artifact' });

export const artifactSummarySchema = z
  .object({ ...artifactFields, content: contentSchema.optional().describe('Only with `include_content=true`') })
  .meta({ id: 'ArtifactSummary' });

export const artifactPageSchema = z
  .object({
    task_id: z.string(),
    artifacts: z.array(artifactSummarySchema).describe('Newest first'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null when this page is the last'),
    count: z.number().int().describe('Number of artifacts in this page'),
  })
  .meta({ id: 'ArtifactPage' });
