import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig, projectRoot } from '../../src/config.ts';

/** .env.example documents every variable of src/config.ts's schema with its default, and no other (but the compose-only section). */
const COMPOSE_ONLY_MARKER = '# --- docker-compose.yml only';

function documented(): Map<string, string> {
  const text = readFileSync(path.join(projectRoot, '.env.example'), 'utf8');
  const serviceSection = text.slice(0, text.indexOf(COMPOSE_ONLY_MARKER));
  const vars = new Map<string, string>();
  for (const line of serviceSection.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    expect(vars.has(m[1]!), `${m[1]} listed twice`).toBe(false);
    vars.set(m[1]!, m[2]!);
  }
  return vars;
}

describe('.env.example', () => {
  it('lists exactly the variables src/config.ts reads', () => {
    expect(readFileSync(path.join(projectRoot, '.env.example'), 'utf8')).toContain(COMPOSE_ONLY_MARKER);
    expect([...documented().keys()].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('gives each its default (empty: no default)', () => {
    const defaults = envSchema.parse({}) as Record<string, unknown>;
    for (const [name, value] of documented()) {
      const d = defaults[name];
      const expected = d === undefined ? '' : name === 'DATA_DIR' ? path.relative(projectRoot, String(d)) : String(d);
      expect(value, name).toBe(expected);
    }
  });

  it('is a configuration the service accepts as it stands', () => {
    expect(() => loadConfig(Object.fromEntries(documented()))).not.toThrow();
  });
});

describe('configuration errors', () => {
  it('list every bad or missing value in one message', () => {
    let message = '';
    try {
      loadConfig({ NODE_ENV: 'production', API_PORT: 'eighty', MODEL_PROVIDER: 'gpt', DATA_DIR: '/tmp/unused' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration:/);
    expect(message).toMatch(/API_PORT: /);
    expect(message).toMatch(/MODEL_PROVIDER: /);
    expect(message).toMatch(/JWT_SECRET: required when NODE_ENV=production/);
    expect(message).toMatch(/SECRETS_KEY: required when NODE_ENV=production/);
    expect(message).toMatch(/METRICS_TOKEN: required when NODE_ENV=production/);
  });
});
