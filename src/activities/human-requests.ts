/** The names run-progress.ts imports the input-request writes by; they live in src/db/approvals.ts. */
export {
  insertInputRequest as openRequestInTx,
  resolveInputRequest as resolveRequestInTx,
  type OpenRequest,
  type ResolveRequest,
} from '../db/approvals.ts';
