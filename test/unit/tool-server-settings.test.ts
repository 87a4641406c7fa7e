import { describe, expect, it } from 'vitest';
import { toolServerSettingsSchema } from '../../src/shared/tool-server-settings.ts';

const issuesOf = (value: unknown) =>
  toolServerSettingsSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('an agent tool server, as settings name it', () => {
  it('reports an empty or unparsable URL as an issue (never throws, so apply answers 422, not 500)', () => {
    expect(issuesOf({ name: 'linear', url: '' })).toEqual(['url: must be an http or https URL']);
    expect(issuesOf({ name: 'linear', url: 'not a url' })).toEqual(['url: must be an http or https URL']);
  });

  it('refuses credentials in the URL and plain-text credential headers', () => {
    expect(issuesOf({ name: 'linear', url: 'https://u:p@mcp.example.com/' })).toEqual([
      'url: must not carry credentials; use headers',
    ]);
    expect(
      issuesOf({ name: 'linear', url: 'https://mcp.example.com/', headers: { Authorization: 'Bearer x' } }),
    ).toEqual(['headers.Authorization: carries a credential: take it from an org secret ({"secret": "NAME"})']);
    expect(
      issuesOf({
        name: 'linear',
        url: 'https://mcp.example.com/',
        headers: { Authorization: { secret: 'LINEAR_TOKEN' } },
      }),
    ).toBeUndefined();
  });

  it('takes OAuth client credentials with the secret from the org, and refuses an Authorization header beside them', () => {
    const oauth = { grant: 'client_credentials', client_id: 'agent-run', client_secret: { secret: 'LINEAR_CLIENT' } };
    const server = { name: 'linear', url: 'https://mcp.example.com/', oauth };
    expect(issuesOf(server)).toBeUndefined();
    expect(
      issuesOf({ ...server, oauth: { ...oauth, scope: 'read write', issuer: 'https://auth.example.com' } }),
    ).toBeUndefined();
    expect(
      issuesOf({ ...server, oauth: { ...oauth, client_secret: 'plain', grant: 'authorization_code', scope: 'a  b' } }),
    ).toEqual([
      'oauth.grant: Invalid input: expected "client_credentials"',
      'oauth.client_secret: Invalid input: expected object, received string',
      'oauth.scope: must be space-separated OAuth scopes',
    ]);
    expect(issuesOf({ ...server, headers: { Authorization: { secret: 'LINEAR_TOKEN' } } })).toEqual([
      'headers.Authorization: is set from the OAuth token: leave it out, or leave out oauth',
    ]);
  });
});
