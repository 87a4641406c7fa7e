import { Router } from 'express';
import { runRequestProblem, runRequestSchema } from '../../shared/run-request.ts';
import type { ApiDeps } from '../deps.ts';
import { badRequest } from '../errors.ts';
import { authenticate, requireAgent } from '../middleware/authenticate.ts';
import { startRun } from '../services/start-run.ts';
import { relayRun } from '../streaming/relay.ts';
import { openSse } from '../streaming/sse.ts';
import { parse } from '../validation.ts';

/** POST /api/run: start a run and stream it, or (`stream: false`) answer 202 with its metadata. */
export function runRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/api/run', authenticate(deps.tokens), requireAgent(deps.db), async (req, res) => {
    const body = parse(runRequestSchema, req.body ?? {}, 'body');
    const problem = runRequestProblem(body);
    if (problem) throw badRequest(problem);
    const run = await startRun(deps, req.caller!, req.agent!, body);
    if (!body.stream) {
      res.status(202).json({
        id: run.runId,
        task_id: run.taskId,
        type: 'pending',
        status: 'pending',
        routing_reason: run.routingReason,
        stream_endpoint: null,
        created_at: run.createdAt.toISOString(),
      });
      return;
    }
    openSse(res, { 'X-Run-Id': run.runId, 'X-Task-Id': run.taskId });
    await relayRun({ db: deps.db, hub: deps.hub, res, runId: run.runId, afterSeq: 0, heartbeatMs: deps.config.heartbeatIntervalMs });
  });
  return router;
}
