import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * The SDK installs a promise hook in its workflow threads that captures a stack trace, mapped through the bundle's
 * source map, for every promise a workflow makes: a third of the workflow thread's time, and only the Stack Trace
 * query reads them. Unless WORKER_WORKFLOW_STACK_TRACES=true, the hook it installs does nothing: the query answers
 * with an empty trace, and nothing else changes (the SDK treats stack traces as optional where hooks are missing).
 */
if (!isMainThread && process.env.WORKER_WORKFLOW_STACK_TRACES !== 'true') {
  v8.promiseHooks.createHook = () => () => {};
}
