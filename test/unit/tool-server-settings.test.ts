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
    expect(issuesOf({ ...server, oauth: { ...oauth, grant: 'password' } })).toEqual([
      "oauth.grant: Invalid discriminator value. Expected 'client_credentials' | 'authorization_code'",
    ]);
    expect(issuesOf({ ...server, oauth: { ...oauth, client_secret: 'plain', scope: 'a  b' } })).toEqual([
      'oauth.client_secret: Invalid input: expected object, received string',
      'oauth.scope: must be space-separated OAuth scopes',
    ]);
    // private_key_jwt: a private key in place of the client secret, never both, never neither.
    const jwt = {
      grant: 'client_credentials',
      client_id: 'x',
      private_key: { secret: 'KEY' },
      signing_algorithm: 'ES256',
    };
    expect(issuesOf({ ...server, oauth: jwt })).toBeUndefined();
    const oneOf = ['oauth.client_secret: give client_secret or private_key (one of them)'];
    expect(issuesOf({ ...server, oauth: { ...jwt, client_secret: { secret: 'S' } } })).toEqual(oneOf);
    expect(issuesOf({ ...server, oauth: { grant: 'client_credentials', client_id: 'x' } })).toEqual(oneOf);
    expect(issuesOf({ ...server, headers: { Authorization: { secret: 'LINEAR_TOKEN' } } })).toEqual([
      'headers.Authorization: is set from the OAuth token: leave it out, or leave out oauth',
    ]);
  });

  it('takes the authorization-code grant (Connect): the secret it stores in is required, a client secret only with a client id', () => {
    const server = { name: 'tickets', url: 'https://mcp.example.com/' };
    const grant = { grant: 'authorization_code', refresh_token: { secret: 'TICKETS_OAUTH' } };
    expect(issuesOf({ ...server, oauth: grant })).toBeUndefined();
    expect(
      issuesOf({ ...server, oauth: { ...grant, client_id: 'c', client_secret: { secret: 'S' }, scope: 'a b' } }),
    ).toBeUndefined();
    expect(issuesOf({ ...server, oauth: { grant: 'authorization_code' } })).toEqual([
      'oauth.refresh_token: Invalid input: expected object, received undefined',
    ]);
    expect(issuesOf({ ...server, oauth: { ...grant, client_secret: { secret: 'S' } } })).toEqual([
      'oauth.client_secret: needs client_id (a registered client)',
    ]);
  });
});
