/**
 * The named shapes of the API, every one taken from the types generated from the OpenAPI
 * document (generated/openapi.ts), so the client and the server's zod schemas agree on every field.
 */
import type { components, operations } from './generated/openapi.ts';

type Schemas = components['schemas'];
/** The body of POST /api/run, as the document describes it. */
type RunBody = NonNullable<operations['startRun']['requestBody']>['content']['application/json'];

/** One AG-UI event of a run stream, a union discriminated on `type` (14 types). */
export type RunEvent = Schemas['RunEvent'];
export type RunEventType = RunEvent['type'];
/** The event of one `type`, e.g. `EventOf<'TEXT_MESSAGE_CONTENT'>`. */
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** The event after which a run's stream ends: RUN_FINISHED or RUN_ERROR. */
export type TerminalEvent = EventOf<'RUN_FINISHED'> | EventOf<'RUN_ERROR'>;
export type CustomEventName = EventOf<'CUSTOM'>['name'];

export type RunEventRecord = Schemas['RunEventRecord'];
export type RunEventPage = Schemas['RunEventPage'];
export type BackgroundRun = Schemas['BackgroundRun'];
export type AsyncRun = Schemas['AsyncRun'];
export type RunStatusResponse = Schemas['TaskRunStatus'];
export type RunList = Schemas['RunList'];
export type RunListItem = Schemas['RunListItem'];
/** The filters of GET /api/runs but `status` (see RunListOptions). */
export type RunListFilter = Omit<NonNullable<operations['listRuns']['parameters']['query']>, 'status'>;
/** A run status, or `needs_you`. */
export type RunListStatus = RunListItem['status'] | 'needs_you';
export type Task = Schemas['Task'];
export type TaskSummary = Schemas['TaskSummary'];
export type TaskList = Schemas['TaskList'];
export type RunSummary = Schemas['RunSummary'];
export type Message = Schemas['Message'];
export type MessageList = Schemas['MessageList'];
export type TaskDeleted = Schemas['TaskDeleted'];
export type CommentAccepted = Schemas['CommentAccepted'];
export type RunControlResult = Schemas['RunControlResult'];
export type PendingInput = Schemas['PendingInputRequest'];
export type PendingInputResponse = Schemas['PendingInput'];
export type InputAnswerBody = Schemas['InputAnswer'];
export type InputResult = Schemas['InputResult'];
export type InputType = PendingInput['input_type'];
export type Approval = Schemas['Approval'];
export type ApprovalList = Schemas['ApprovalList'];
export type ApprovalStatus = NonNullable<NonNullable<operations['listApprovals']['parameters']['query']>['status']>;
export type ApprovalDecision = Schemas['ApprovalDecision'];
export type ApprovalDecisionResult = Schemas['ApprovalDecisionResult'];
export type Memory = Schemas['Memory'];
export type MemoryPage = Schemas['MemoryPage'];
export type TokenExchangeResponse = Schemas['TokenExchangeResponse'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyList = Schemas['ApiKeyList'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type RevokedApiKey = Schemas['RevokedApiKey'];
export type Member = Schemas['Member'];
export type MemberList = Schemas['MemberList'];
export type UsableAgent = Schemas['UsableAgent'];
export type UsableAgentList = Schemas['UsableAgentList'];
export type OrgConfiguration = Schemas['OrgConfiguration'];
export type Usage = Schemas['Usage'];
/** The window and agent of GET /api/admin/usage. */
export type UsageOptions = NonNullable<operations['getUsage']['parameters']['query']>;
export type OrgApplyResult = Schemas['OrgApplyResult'];
export type AppliedOrg = Schemas['AppliedOrg'];
export type OrgSecret = Schemas['OrgSecret'];
export type OrgSecretList = Schemas['OrgSecretList'];
/** One tool server of an agent's settings, as POST /api/admin/tool-servers/test takes it. */
export type ToolServerTestRequest = Schemas['ToolServerTestRequest'];
export type ToolServerTestResult = Schemas['ToolServerTestResult'];
/** A started Connect (OAuth authorization code): the URL the admin's browser opens. */
export type ToolServerConnectStarted = Schemas['ToolServerConnectStarted'];
/** One org's contents as GET /api/admin/org returns them (`document`): every list present, defaults filled. */
export type OrgDocument = Schemas['OrgDocument'];
type DocFlow = OrgDocument['flows'][number];
type CronSettings = NonNullable<DocFlow['cron']>;
/** A flow as sent: a cron flow's timezone, overlap and catch-up window may be left out (defaults apply). */
export type FlowSpec = Omit<DocFlow, 'cron'> & {
  cron?: Pick<CronSettings, 'schedule'> & Partial<Omit<CronSettings, 'schedule'>>;
};
/** The body of POST /api/admin/apply: any of the lists; a list left out is left alone. */
export type ApplyDocument = Partial<Omit<OrgDocument, 'flows'>> & { flows?: FlowSpec[] };
/** The `{detail}` body of an error response (422 bodies carry a list of `{loc, msg, type}`). */
export type ErrorBody = Schemas['Error'] | Schemas['ValidationError'];

type StartRunBody = operations['startRun']['requestBody']['content']['application/json'];
export type RunMessage = StartRunBody['messages'][number];
export type RunMode = NonNullable<StartRunBody['mode']>;

/** Identifies the request being answered: copied from USER_INPUT_REQUIRED or `input.pending`. */
export type InputRequestRef<T extends InputType = InputType> = { request_id: string; run_id: string; input_type: T };
/** The answer fields of one input type, e.g. `{ value }` for `choice` or `{ approved, feedback? }` for `plan_approval`. */
export type AnswerFor<T extends InputType> = T extends InputType
  ? Omit<
      Extract<InputAnswerBody, { input_type: T; cancelled?: false }>,
      'request_id' | 'run_id' | 'input_type' | 'cancelled'
    >
  : never;
/** An answer to a request of type T, or `{ cancelled: true }` to dismiss it. */
export type InputAnswer<T extends InputType = InputType> = AnswerFor<T> | { cancelled: true };

/** What starts a run. `message` is shorthand for `messages: [{ role: 'user', content: message }]`. */
export interface RunRequest {
  message?: string;
  messages?: RunMessage[];
  /** Overrides the client's default `X-Agent-Id`. */
  agentId?: string;
  /** Continues this task (conversation); omit to start a new one. */
  taskId?: string;
  mode?: RunMode;
  /** IANA time zone name, e.g. `Europe/Berlin` (the document lists the accepted names). */
  timezone?: string;
  /** What happens when `taskId`'s run is still busy: `reject` (default, 409), `enqueue`, `interrupt` or `rollback`. */
  multitaskStrategy?: RunBody['multitask_strategy'];
  /** Sent as `Idempotency-Key`; a random UUID when omitted. Every retry of this request reuses it. */
  idempotencyKey?: string;
}

/** Options every method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's default `X-Agent-Id` for this call. */
  agentId?: string;
}
