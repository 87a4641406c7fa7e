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
});
