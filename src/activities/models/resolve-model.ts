import type { Config } from '../../config.ts';
import { agentModelSettingsSchema } from '../../shared/agent-settings.ts';
import { AiSdkModel } from './ai-sdk-model.ts';
import { OFFLINE_INSTANT_MODEL, OfflineModel } from './offline-model.ts';
import { ModelConfigError, type ModelProvider } from './provider.ts';

const instantOfflineModel = new OfflineModel(0);
const defaultModelNames = {
  'openai-compatible': undefined,
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
} as const;

export interface ResolvedModel {
  provider: ModelProvider;
  systemPrompt?: string;
}

/**
 * The model for an agent: its own settings field by field, then the service's
 * environment (MODEL_*), then the built-in offline model. The key: the org secret
 * the agent names in `api_key` (opened by the caller, `secretKey`), else the variable
 * the operator named in api_key_env, else MODEL_API_KEY.
 */
export function resolveModel(
  config: Config,
  rawSettings: unknown,
  env: NodeJS.ProcessEnv,
  offline: ModelProvider = new OfflineModel(),
  secretKey?: string,
): ResolvedModel {
  const parsed = agentModelSettingsSchema.safeParse(rawSettings ?? {});
  if (!parsed.success)
    throw new ModelConfigError(`agent model settings are invalid: ${parsed.error.issues[0]?.message}`);
  const s = parsed.data;
  const provider = s.provider ?? (s.base_url ? 'openai-compatible' : config.model.provider);
  if (provider === 'offline')
    return {
      provider: s.model === OFFLINE_INSTANT_MODEL ? instantOfflineModel : offline,
      systemPrompt: s.system_prompt,
    };

  const usesServiceDefaults = provider === config.model.provider;
  const baseUrl = s.base_url ?? (usesServiceDefaults ? config.model.baseUrl : undefined);
  const model = s.model ?? (usesServiceDefaults ? config.model.name : undefined) ?? defaultModelNames[provider];
  if (s.api_key && !secretKey) throw new ModelConfigError(`the org secret ${s.api_key.secret} (api_key) is empty`);
  const apiKey = s.api_key ? secretKey : s.api_key_env ? env[s.api_key_env] : config.model.apiKey;
  if (!s.api_key && s.api_key_env && !apiKey)
    throw new ModelConfigError(`environment variable ${s.api_key_env} named by the agent is not set`);
  if (provider === 'openai-compatible' && !baseUrl)
    throw new ModelConfigError('openai-compatible provider needs a base URL');
  if (!model) throw new ModelConfigError(`no model name configured for provider ${provider}`);
  return {
    provider: new AiSdkModel({
      provider,
      model,
      baseUrl,
      apiKey,
      temperature: s.temperature,
      maxOutputTokens: s.max_output_tokens,
    }),
    systemPrompt: s.system_prompt,
  };
}
