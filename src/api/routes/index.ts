import type { RouteSpec } from '../route.ts';
import { adminRoutes } from './admin-keys.ts';
import { adminOrgRoutes } from './admin-org.ts';
import { adminSecretRoutes } from './admin-secrets.ts';
import { adminToolServerRoutes } from './admin-tool-servers.ts';
import { toolServerOAuthRoutes } from './tool-server-oauth.ts';
import { agUiRoutes } from './ag-ui.ts';
import { approvalRoutes } from './approvals.ts';
import { artifactRoutes } from './artifacts.ts';
import { authRoutes } from './auth.ts';
import { commentRoutes } from './comments.ts';
import { consoleSessionRoutes } from './console-session.ts';
import { eventRoutes } from './events.ts';
import { flowRoutes } from './flows.ts';
import { humanInputRoutes } from './human-input.ts';
import { memoryRoutes } from './memories.ts';
import { runControlRoutes } from './run-control.ts';
import { runStatusRoutes } from './run-status.ts';
import { runListRoutes } from './run-list.ts';
import { runRoutes } from './runs.ts';
import { streamRoutes } from './streams.ts';
import { taskRoutes } from './tasks.ts';
import { usageRoutes } from './usage.ts';
import { webhookRoutes } from './webhooks.ts';
import { widgetRoutes } from '../widget/routes.ts';

/** Every documented operation of the API. The OpenAPI document is built from this list. */
export const allRoutes: RouteSpec[] = [
  ...authRoutes,
  ...consoleSessionRoutes,
  ...runRoutes,
  ...runStatusRoutes,
  ...runListRoutes,
  ...taskRoutes,
  ...commentRoutes,
  ...streamRoutes,
  ...eventRoutes,
  ...artifactRoutes,
  ...memoryRoutes,
  ...humanInputRoutes,
  ...approvalRoutes,
  ...runControlRoutes,
  ...webhookRoutes,
  ...flowRoutes,
  ...widgetRoutes,
  ...agUiRoutes,
  ...adminRoutes,
  ...adminOrgRoutes,
  ...adminSecretRoutes,
  ...adminToolServerRoutes,
  ...toolServerOAuthRoutes,
  ...usageRoutes,
];
