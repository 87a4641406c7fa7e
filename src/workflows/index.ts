export { runWorkflow } from './run-workflow.ts';
