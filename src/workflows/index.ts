export { runWorkflow } from './run-workflow.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
