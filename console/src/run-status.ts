/** The run status labels of the SDK (one per spec status, and `needs_you`), and the order the console offers them in. */
import { RUN_STATUS_LABELS, type RunListStatus } from '@agent-run/client';

export { isTerminalRunStatus, RUN_STATUS_LABELS, runStatusLabel } from '@agent-run/client';

/** The filter's order: what needs the viewer first, then live states, then ended ones. */
export const RUN_STATUS_FILTERS = Object.keys(RUN_STATUS_LABELS) as RunListStatus[];
