import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import draft7 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/config.ts';
import { dependencies, parseCompose, readCompose, startOrder, type ComposeFile } from '../support/compose.ts';
import { startScript } from '../support/start-scripts.ts';
import { fairnessConfig } from '../../src/embedded/temporal-dev-server.ts';

/**
 * docker-compose.yml against the Compose Specification's JSON schema. The schema is vendored:
 * test/deploy/compose-spec.schema.json is schema/compose-spec.json of the compose-spec/compose-spec
 * repository (commit 170098ba07d9f53c383a41bfd4c5166b0a4529a6, 2026-06-23). We cannot run Docker
 * here, so this and test/deploy/production-build.test.ts stand in for `docker compose config` / `up`.
 */
const composePath = path.join(projectRoot, 'docker-compose.yml');
const schema = JSON.parse(readFileSync(path.join(import.meta.dirname, 'compose-spec.schema.json'), 'utf8')) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
// The schema names draft-07's meta-schema by its https address; Ajv knows it by the http one.
ajv.addMetaSchema({ ...draft7, $id: 'https://json-schema.org/draft-07/schema' });
const validate = ajv.compile(schema);

function schemaErrors(compose: unknown): string[] {
  return validate(compose)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

const original = readFileSync(composePath, 'utf8');
const compose = () => parseCompose(original);

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    expect(schemaErrors(compose())).toEqual([]);
  });

  it('the schema rejects broken copies of it', () => {
    const broken: [string, (c: ComposeFile) => void][] = [
      ['unknown service key', (c) => Object.assign(c.services.api!, { helthcheck: {} })],
      [
        'depends_on condition that does not exist',
        (c) => Object.assign(c.services.api!, { depends_on: { migrate: { condition: 'service_ready' } } }),
      ],
      ['ports as one string instead of a list', (c) => Object.assign(c.services.api!, { ports: '8000:8000' })],
      [
        'healthcheck with an unknown key',
        (c) => Object.assign(c.services.postgres!.healthcheck!, { command: 'pg_isready' }),
      ],
      ['services as a list', (c) => Object.assign(c, { services: [] })],
    ];
    for (const [what, breakIt] of broken) {
      const copy = compose();
      breakIt(copy);
      expect(schemaErrors(copy), what).not.toEqual([]);
    }
    // And edits of the text itself: a misspelt condition, a volume list given as a map.
    expect(
      schemaErrors(parseCompose(original.replace('condition: service_healthy', 'condition: healthy'))),
    ).not.toEqual([]);
    expect(
      schemaErrors(
        parseCompose(
          original.replace(
            'volumes: [pgdata:/var/lib/postgresql/data]',
            'volumes: { pgdata: /var/lib/postgresql/data }',
          ),
        ),
      ),
    ).not.toEqual([]);
  });

  it('keeps the deployment rules: healthchecks, conditions, restart policies, published ports, secrets', () => {
    const c = readCompose(composePath);
    const oneShots = Object.keys(c.services).filter((n) => c.services[n]!.restart === 'no');
    expect(oneShots.sort()).toEqual(['migrate', 'search-attributes', 'temporal-schema']);
    for (const [name, service] of Object.entries(c.services)) {
      // Every long-running service restarts and has a healthcheck; one-shots do not restart.
      if (!oneShots.includes(name)) {
        expect(service.restart, name).toBe('unless-stopped');
        expect(service.healthcheck?.test, `${name} healthcheck`).toBeDefined();
      }
      // Every dependency waits for a condition: healthy for long-running services, completion for one-shots.
      for (const [dep, condition] of Object.entries(dependencies(service))) {
        expect(condition, `${name} -> ${dep}`).toBe(
          oneShots.includes(dep) ? 'service_completed_successfully' : 'service_healthy',
        );
      }
      // Only the api and the UIs are published (the UIs on loopback).
      if (service.ports) expect(['api', 'temporal-ui', 'grafana', 'jaeger'], `${name} publishes ports`).toContain(name);
      if (service.ports && name !== 'api')
        for (const port of service.ports) expect(String(port), `${name} on loopback`).toMatch(/^127\.0\.0\.1:/);
    }
    expect(c.services['temporal-ui']!.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(startOrder(c)).toHaveLength(Object.keys(c.services).length);
    // Secrets have no default: compose stops with a message when they are missing.
    expect(original).toMatch(/JWT_SECRET: \$\{JWT_SECRET:\?/);
    expect(original).toMatch(/SECRETS_KEY: \$\{SECRETS_KEY:\?/);
    expect(original).toMatch(/METRICS_TOKEN: \$\{METRICS_TOKEN:\?/);
    expect(original).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
    // Temporal persists in PostgreSQL, not in SQLite, and is not the dev server.
    expect(original).not.toMatch(/start-dev|sqlite|db-filename/i);
    expect(c.services.temporal!.image).toMatch(/^temporalio\/server:/);
    expect(Object.keys(c.volumes ?? {}).sort()).toEqual(['grafana', 'pgdata', 'prometheus', 'workspaces']);
  });

  it('the observability profile scrapes what the api and worker serve and provisions the dashboard it mounts', () => {
    const c = readCompose(composePath);
    for (const name of ['prometheus', 'grafana', 'jaeger'])
      expect(c.services[name]!.profiles, name).toEqual(['observability']);
    const prometheus = parse(
      readFileSync(path.join(projectRoot, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'),
    ) as {
      scrape_configs: {
        job_name: string;
        metrics_path: string;
        authorization?: { credentials_file: string };
        dns_sd_configs: { names: string[]; port: number }[];
      }[];
    };
    const job = (name: string) => prometheus.scrape_configs.find((j) => j.job_name === name)!;
    const env = (service: string) => c.services[service]!.environment as Record<string, string>;
    expect(job('api').dns_sd_configs[0]).toMatchObject({ names: ['api'], port: Number(env('api').API_PORT) });
    expect(job('worker').dns_sd_configs[0]).toMatchObject({
      names: ['worker'],
      port: Number(env('worker').WORKER_METRICS_PORT),
    });
    expect(env('worker').WORKER_METRICS_HOST).toBe('0.0.0.0');
    // The token file Prometheus sends is the secret made from the api's METRICS_TOKEN.
    const secret = (c.services.prometheus as { secrets: { source: string; target: string }[] }).secrets[0]!;
    expect(job('api').authorization?.credentials_file).toBe(secret.target);
    expect((c.secrets as Record<string, { environment: string }>)[secret.source]).toEqual({
      environment: 'METRICS_TOKEN',
    });
    // Required, as the other secrets: the api is published on every interface and its /metrics would be open.
    expect(env('api').METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:\?/);
    // Grafana loads dashboards from where compose mounts deploy/grafana/dashboards.
    const provider = parse(
      readFileSync(path.join(projectRoot, 'deploy', 'grafana', 'provisioning', 'dashboards', 'dashboards.yml'), 'utf8'),
    ) as { providers: { options: { path: string } }[] };
    const mounts = (c.services.grafana!.volumes as string[]).map((v) => v.split(':'));
    expect(mounts).toContainEqual(['./deploy/grafana/dashboards', provider.providers[0]!.options.path, 'ro']);
    const home = env('grafana').GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH!;
    expect(home.startsWith(`${provider.providers[0]!.options.path}/`)).toBe(true);
    expect(existsSync(path.join(projectRoot, 'deploy', 'grafana', 'dashboards', path.basename(home)))).toBe(true);
  });

  it("runs the api and worker as package.json's start scripts do: the same node flags and environment", () => {
    for (const name of ['api', 'worker'] as const) {
      const script = startScript(name);
      const service = compose().services[name]!;
      expect(service.command, name).toEqual(script.command);
      const env = service.environment as Record<string, string>;
      for (const [key, value] of script.env) expect(env[key], `${name} ${key}`).toBe(value);
    }
  });

  it("gives its Temporal server the dev server's dynamic config (fairness, one partition per task queue)", () => {
    const file = compose().services.temporal!.volumes?.find((v) => String(v).includes('dynamicconfig'));
    expect(String(file)).toContain('./deploy/temporal/dynamicconfig.yaml:');
    const config = parse(readFileSync(path.join(projectRoot, 'deploy/temporal/dynamicconfig.yaml'), 'utf8')) as Record<
      string,
      { value: unknown }[]
    >;
    const fromFile = Object.entries(config).map(([key, [entry]]) => `${key}=${String(entry!.value)}`);
    expect(fromFile.sort()).toEqual([...fairnessConfig].sort());
  });
});
