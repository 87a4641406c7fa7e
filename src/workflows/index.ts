export { agentRun } from './run-workflow.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
export { flowReplyWorkflow, flowTickWorkflow } from './flow-workflows.ts';
export { toolServerCheckWorkflow } from './tool-server-check.ts';
