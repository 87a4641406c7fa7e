import type { Config } from '../../config.ts';
import { OFFLINE_MODEL_LABEL } from './offline-model.ts';

/** What the service uses when an agent names no model of its own. */
export function describeDefaultModel(config: Config): string {
  const m = config.model;
  if (m.provider === 'offline') return OFFLINE_MODEL_LABEL;
  return `${m.provider}${m.name ? `:${m.name}` : ''}${m.baseUrl ? ` at ${m.baseUrl}` : ''}`;
}
