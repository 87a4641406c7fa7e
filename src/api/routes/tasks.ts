import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import {
  MAX_TASK_PAGE,
  messageListSchema,
  taskDeletedSchema,
  taskDetailSchema,
  taskIdParams,
  taskListQuery,
  taskListSchema,
} from '../schemas/tasks.ts';
import { loadAccessibleTask } from '../services/task-access.ts';
import { deleteTask, listTasks, taskDetail, taskMessages } from '../services/tasks.ts';

const TASK_VISIBILITY =
  'Owners and admins see every task of the `X-Agent-Id` agent; members and guests only the tasks they started. ' +
  'A task of another organization, another agent or (for members and guests) another user is 403; an unknown task is 404.';

export const taskRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/tasks',
    operationId: 'listTasks',
    summary: 'List tasks, newest first',
    description:
      'The tasks of the `X-Agent-Id` agent, newest first (by creation time). Owners and admins get every task of the ' +
      'agent in their organization; members and guests only the tasks they started. `limit` is 1 to ' +
      `${MAX_TASK_PAGE} (default 50); there is no offset. Each item carries the task-level \`run_status\` and the id ` +
      'of its latest run.',
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    query: taskListQuery,
    responses: {
      200: { description: 'The tasks, newest first; `count` is the number returned', schema: taskListSchema },
      ...errorResponses,
    },
    async handler({ query, caller, agent }, { db }) {
      return listTasks(db, caller, agent, query.limit);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}',
    operationId: 'getTask',
    summary: 'A task with summaries of its runs',
    description:
      'The task (`id`, `title`, `org_id`, `agent_id`, `user_id`, `run_status`, `latest_run_id`, timestamps, ' +
      '`message_count`) and every run of it, newest first, each with its status, resolved mode, routing reason, ' +
      'timestamps, token usage and credits. ' +
      TASK_VISIBILITY,
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: taskIdParams,
    responses: { 200: { description: 'The task', schema: taskDetailSchema }, ...errorResponses },
    async handler({ params, caller, agent }, { db }) {
      return taskDetail(db, await loadAccessibleTask(db, params.task_id, caller, agent));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}/messages',
    operationId: 'listTaskMessages',
    summary: 'The conversation of a task',
    description:
      'Every stored message of the task in conversation order (`position` from 1): the user turns as sent and the ' +
      'assistant answers as stored when each run completed, each with the `run_id` of the turn that added it. ' +
      TASK_VISIBILITY,
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: taskIdParams,
    responses: { 200: { description: 'The messages, oldest first', schema: messageListSchema }, ...errorResponses },
    async handler({ params, caller, agent }, { db }) {
      return taskMessages(db, await loadAccessibleTask(db, params.task_id, caller, agent));
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/tasks/{task_id}',
    operationId: 'deleteTask',
    summary: 'Delete a task with all its runs and messages',
    description:
      'Permanently deletes the task, its runs, messages, run events and comments. An active run is stopped first: ' +
      'its workflow is terminated (not cancelled, so nothing more is written for it). A deleted task is 404 ' +
      'afterwards. If the active run cannot be stopped (the workflow engine is unreachable) nothing is deleted and ' +
      'the answer is 503 with `Retry-After`. ' +
      TASK_VISIBILITY,
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: taskIdParams,
    responses: {
      200: { description: 'Deleted', schema: taskDeletedSchema },
      ...errorResponses,
      503: { description: 'The active run could not be stopped; nothing was deleted', schema: errorSchema },
    },
    async handler({ params, caller, agent }, deps) {
      const task = await loadAccessibleTask(deps.db, params.task_id, caller, agent);
      const deleted = await deleteTask(deps, task);
      return {
        status: 'deleted',
        message: `Task ${task.id} was deleted with its ${deleted.runs} run(s) and ${deleted.messages} message(s)`,
      };
    },
  }),
];
