import { ApplicationFailure } from '@temporalio/common';
import { agentModelSettings, agentOrgId } from '../../db/agents.ts';
import { RunGoneError } from '../../db/event-log.ts';
import { InfrastructureUnavailable } from '../../connections/transient-errors.ts';
import { CALL_ATTEMPTS, failureTypes } from '../../shared/run-workflow-types.ts';
import type { ActivityDeps } from '../deps.ts';
import { orgSecretReader } from '../org-secrets.ts';
import { ModelConfigError } from './provider.ts';
import { resolveModel, type ResolvedModel } from './resolve-model.ts';

const secretReaders = new WeakMap<ActivityDeps, ReturnType<typeof orgSecretReader>>();

/** The agent's model and its raw settings. A configuration problem fails without retries: retrying cannot fix it. */
export async function loadAgentModel(
  deps: ActivityDeps,
  agentId: string,
): Promise<{ model: ResolvedModel; settings: unknown }> {
  const settings = await agentModelSettings(deps.db, agentId);
  try {
    const secretKey = await providerKeyFromSecret(deps, agentId, settings);
    return { model: resolveModel(deps.config, settings, deps.env, deps.offlineModel, secretKey), settings };
  } catch (err) {
    if (err instanceof ModelConfigError) throw ApplicationFailure.nonRetryable(err.message, failureTypes.modelConfig);
    throw err;
  }
}

/**
 * The key of `api_key: {"secret": NAME}`, opened here at call time so that it never enters a
 * workflow's input or history. A missing or unreadable secret is a configuration problem of the agent.
 */
async function providerKeyFromSecret(
  deps: ActivityDeps,
  agentId: string,
  settings: unknown,
): Promise<string | undefined> {
  const name = (settings as { api_key?: { secret?: unknown } } | null)?.api_key?.secret;
  if (typeof name !== 'string') return undefined; // absent, or invalid: resolveModel says why
  let read = secretReaders.get(deps);
  if (!read) secretReaders.set(deps, (read = orgSecretReader(deps.db, deps.config)));
  try {
    return await read(await agentOrgId(deps.db, agentId), name, "the agent's model provider key (api_key)");
  } catch (err) {
    if (err instanceof ApplicationFailure && err.nonRetryable) throw new ModelConfigError(err.message);
    throw err;
  }
}

/**
 * What a failed model call becomes. A deleted run and a call the AI SDK marks
 * as hopeless (a refused key, a bad request: 4xx other than 408/409/429) fail at
 * once. Our own store failing under the call (InfrastructureUnavailable) is retried
 * without limit; any other provider failure gets CALL_ATTEMPTS attempts in all.
 */
export function modelCallFailure(what: string, err: unknown, attempt: number): ApplicationFailure {
  if (err instanceof RunGoneError) return ApplicationFailure.nonRetryable(err.message, failureTypes.runGone);
  const message = `${what} failed: ${(err as Error).message}`;
  if (err instanceof InfrastructureUnavailable)
    return ApplicationFailure.retryable(message, failureTypes.infrastructure);
  if ((err as { isRetryable?: boolean }).isRetryable === false)
    return ApplicationFailure.nonRetryable(message, failureTypes.model);
  if (attempt >= CALL_ATTEMPTS)
    return ApplicationFailure.nonRetryable(`${message} (attempt ${attempt} of ${CALL_ATTEMPTS})`, failureTypes.model);
  return ApplicationFailure.retryable(message, failureTypes.model);
}
