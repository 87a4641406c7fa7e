import { describe, expect, it } from 'vitest';
import { isTransportFailure } from '../../src/activities/mcp/failures.ts';
import { toolOutcome } from '../../src/activities/mcp/results.ts';
import { plannerToolLines } from '../../src/activities/plan-step.ts';
import { RefusedTargetError } from '../../src/outbound/address-guard.ts';
import { guardedFetch } from '../../src/outbound/guarded-fetch.ts';
import { agentModelSettingsSchema } from '../../src/shared/agent-settings.ts';
import { runSettingsFrom } from '../../src/shared/run-settings.ts';
import { policyNames, serverToolName } from '../../src/shared/tool-server-names.ts';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const settings = (tool_servers: unknown) => agentModelSettingsSchema.safeParse({ tool_servers });
const problems = (tool_servers: unknown) => {
  const parsed = settings(tool_servers);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('tool server settings', () => {
  const linear = { name: 'linear', url: 'https://mcp.example.test/mcp' };

  it('takes a server with secret headers, plain non-credential headers, allowed tools and a timeout', () => {
    expect(
      problems([
        {
          ...linear,
          headers: { Authorization: { secret: 'LINEAR_TOKEN' }, 'X-Team': 'backend' },
          allowed_tools: ['create_issue'],
          timeout_seconds: 120,
        },
      ]),
    ).toEqual([]);
  });

  it('refuses bad names, duplicates, non-http URLs, credentials in plain text and transport headers', () => {
    expect(problems([{ ...linear, name: 'Linear' }])).toHaveLength(1);
    expect(problems([{ ...linear, name: 'a__b' }])).toHaveLength(1);
    expect(problems([{ ...linear, name: 'lin_' }])).toHaveLength(1);
    expect(problems([linear, linear])).toEqual([expect.stringContaining('duplicate tool server name linear')]);
    expect(problems([{ ...linear, url: 'ftp://example.test/mcp' }])).toHaveLength(1);
    expect(problems([{ ...linear, url: 'https://user:pw@example.test/mcp' }])).toHaveLength(1);
    expect(problems([{ ...linear, headers: { Authorization: 'Bearer abc' } }])).toEqual([
      expect.stringContaining('org secret'),
    ]);
    expect(problems([{ ...linear, headers: { 'X-Api-Key': 'abc' } }])).toHaveLength(1);
    expect(problems([{ ...linear, headers: { 'Mcp-Session-Id': 'x' } }])).toHaveLength(1);
    expect(problems([{ ...linear, timeout_seconds: 0 }])).toHaveLength(1);
  });

  it('reaches the run settings only for an agent that has servers', () => {
    expect(runSettingsFrom({})).not.toHaveProperty('toolServers');
    expect(runSettingsFrom({ tool_servers: [] })).not.toHaveProperty('toolServers');
    expect(runSettingsFrom({ tool_servers: [linear] }).toolServers).toEqual([
      { name: 'linear', url: linear.url, timeoutSeconds: 60 },
    ]);
  });
});

describe('tool names and policies', () => {
  it('offers <server>__<tool> when a provider would accept it', () => {
    expect(serverToolName('everything', 'get-sum')).toBe('everything__get-sum');
    expect(serverToolName('x', 'has.dot')).toBeUndefined();
    expect(serverToolName('x', 'y'.repeat(70))).toBeUndefined();
  });

  it('matches exact names and <server>__* in policy lists', () => {
    expect(policyNames(['linear__create_issue'], 'linear__create_issue')).toBe(true);
    expect(policyNames(['linear__*'], 'linear__delete_issue')).toBe(true);
    expect(policyNames(['linear__*'], 'github__delete_repo')).toBe(false);
    expect(policyNames(['save_memory'], 'save_memory')).toBe(true);
    expect(policyNames(['linear__*'], 'save_memory')).toBe(false);
  });
});

describe('tool server failures and results', () => {
  it('retries transport failures only', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(isTransportFailure(refused)).toBe(true);
    expect(isTransportFailure(new StreamableHTTPError(503, 'unavailable'))).toBe(true);
    expect(isTransportFailure(new McpError(ErrorCode.RequestTimeout, 'timed out'))).toBe(true);
    expect(isTransportFailure(new StreamableHTTPError(401, 'unauthorized'))).toBe(false);
    expect(isTransportFailure(new McpError(ErrorCode.InvalidParams, 'bad'))).toBe(false);
    expect(isTransportFailure(new RefusedTargetError('private'))).toBe(false);
  });

  it('gives the model text and structured content, describes images, and turns isError into an error', () => {
    expect(toolOutcome({ content: [{ type: 'text', text: 'Echo: hi' }] })).toEqual({
      ok: true,
      output: { text: 'Echo: hi' },
    });
    expect(
      toolOutcome({
        content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
        structuredContent: { temperature: 20 },
      }),
    ).toEqual({
      ok: true,
      output: {
        structured_content: { temperature: 20 },
        attachments: [{ type: 'image', mime_type: 'image/png', size_bytes: 3 }],
      },
    });
    expect(toolOutcome({ content: [{ type: 'text', text: 'no such issue' }], isError: true })).toEqual({
      ok: false,
      error: { code: 'TOOL_ERROR', message: 'no such issue' },
    });
  });
});

describe('the outbound guard on tool servers', () => {
  it('refuses loopback and private targets unless private targets are allowed', async () => {
    const refuse = guardedFetch(false);
    await expect(refuse('http://127.0.0.1:8123/mcp')).rejects.toBeInstanceOf(RefusedTargetError);
    await expect(refuse('http://[::1]:8123/mcp')).rejects.toBeInstanceOf(RefusedTargetError);
    // A name is checked when the connection is made: fetch fails with the refusal as its cause, which is no reason to retry.
    const named = await refuse('http://localhost:8123/mcp').catch((err: unknown) => err);
    expect((named as Error).cause).toBeInstanceOf(RefusedTargetError);
    expect(isTransportFailure(named)).toBe(false);
    expect(guardedFetch(true)).toBe(fetch);
  });
});

describe('large tool results', () => {
  it('cut text and leave out structured content too large for the history', () => {
    const big = 'x'.repeat(70 * 1024);
    const outcome = toolOutcome({ content: [{ type: 'text', text: big }], structuredContent: { big } });
    expect(outcome.ok && (outcome.output as { text: string }).text).toMatch(/… \(cut at 65536 characters\)$/);
    expect(outcome.ok && outcome.output).toMatchObject({
      structured_content_omitted: expect.stringMatching(/over 65536/),
    });
    expect(outcome.ok && outcome.output).not.toHaveProperty('structured_content');
  });
});

describe("deep mode's planner", () => {
  const run = { runId: 'run_1', taskId: 'task_1', agentId: 'agt_1' };

  it("is told the tools the steps get, built-in and the servers', names and descriptions on one line each", () => {
    const lines = plannerToolLines(
      {
        ...run,
        serverTools: [{ name: 'tickets__create_issue', description: 'Files an issue\n\nin the tracker' }],
        toolNote: 'wiki is down',
      },
      { tools: ['save_memory'] },
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^The steps can use these tools:\n- save_memory: [^\n]+\n- tickets__create_issue: Files an issue in the tracker$/,
      ),
      'wiki is down',
    ]);
  });

  it('is told nothing more in a run without tool servers', () => {
    expect(plannerToolLines(run, { tools: ['save_memory'] })).toEqual([]);
  });
});
