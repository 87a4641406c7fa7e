import { defineRoute } from '../route.ts';
import {
  ARTIFACT_PAGE_DEFAULT,
  ARTIFACT_PAGE_MAX,
  artifactListParams,
  artifactListQuery,
  artifactPageSchema,
  artifactParams,
  artifactSchema,
} from '../schemas/artifacts.ts';
import { errorResponses } from '../schemas/common.ts';
import { artifactPage, loadTaskArtifact, toArtifactRecord } from '../services/artifacts.ts';
import { loadAccessibleTask } from '../services/task-access.ts';

const VISIBILITY =
  'Artifacts are visible exactly like their task: owners and admins see every task of the `X-Agent-Id` agent, members and ' +
  'guests only the tasks they started. A task of another organization, agent or user is 403; an unknown task is 404.';

export const artifactRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}/artifacts',
    operationId: 'listTaskArtifacts',
    summary: 'The rich artifacts of a task, newest first',
    description:
      'Charts, tables, documents, images, code and diagrams the agent made in any run of the task (tools `create_artifact` ' +
      'and `update_artifact`; the runs stream their lifecycle as ARTIFACT_* CUSTOM events whose `data.url` points at the ' +
      'artifact). Newest first (created_at, then id). Items are metadata only unless `include_content=true`. ' +
      `\`limit\` is 1 to ${ARTIFACT_PAGE_MAX} (default ${ARTIFACT_PAGE_DEFAULT}); \`cursor\` is opaque: pass the previous ` +
      "page's `next_cursor` unchanged (a malformed cursor, or one from another task's list, is 422); `next_cursor` is null " +
      'on the last page. `run_id` and `kind` filter. ' +
      VISIBILITY,
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: artifactListParams,
    query: artifactListQuery,
    responses: { 200: { description: 'One page of artifacts', schema: artifactPageSchema }, ...errorResponses },
    async handler({ params, query, caller, agent }, { db }) {
      const task = await loadAccessibleTask(db, params.task_id, caller, agent);
      return artifactPage(db, task.id, query);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}/artifacts/{artifact_id}',
    operationId: 'getTaskArtifact',
    summary: 'One artifact with its full content',
    description:
      'The artifact with its current `content` and `version`. Only the current version is kept: `revise` replaces the ' +
      'content and adds 1 to `version` (the ARTIFACT_REVISED event records the change; events carry content inline up to ' +
      '16 KiB). An artifact id that is unknown or belongs to another task is 404. ' +
      VISIBILITY,
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: artifactParams,
    responses: { 200: { description: 'The artifact', schema: artifactSchema }, ...errorResponses },
    async handler({ params, caller, agent }, { db }) {
      const task = await loadAccessibleTask(db, params.task_id, caller, agent);
      return toArtifactRecord(await loadTaskArtifact(db, task.id, params.artifact_id));
    },
  }),
];
