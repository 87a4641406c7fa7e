import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatIssues } from '../../src/shared/zod-issues.ts';

describe('formatIssues', () => {
  const schema = z.object({ title: z.string(), tags: z.array(z.string()) });
  const nested = schema.safeParse({ title: 1, tags: ['a', 2] }).error!.issues;
  const whole = schema.safeParse('not an object').error!.issues;

  it('writes "path: message", array indexes included', () => {
    expect(formatIssues(nested)).toEqual([`title: ${nested[0]!.message}`, `tags.1: ${nested[1]!.message}`]);
  });
  it('prefixes a root to every path', () => {
    expect(formatIssues(nested, { root: 'content' })).toEqual([
      `content.title: ${nested[0]!.message}`,
      `content.tags.1: ${nested[1]!.message}`,
    ]);
    expect(formatIssues(whole, { root: 'agent' })).toEqual([`agent: ${whole[0]!.message}`]);
  });
  it('shows an issue about the whole value bare, or under the name given for it', () => {
    expect(formatIssues(whole)).toEqual([whole[0]!.message]);
    expect(formatIssues(whole, { atRoot: 'input' })).toEqual([`input: ${whole[0]!.message}`]);
    expect(formatIssues(whole, { atRoot: '' })).toEqual([`: ${whole[0]!.message}`]);
  });
});
