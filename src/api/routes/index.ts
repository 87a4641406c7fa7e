import type { RouteSpec } from '../route.ts';
import { authRoutes } from './auth.ts';
import { runRoutes } from './runs.ts';

/** Every documented operation of the API. The OpenAPI document is built from this list. */
export const allRoutes: RouteSpec[] = [...authRoutes, ...runRoutes];
