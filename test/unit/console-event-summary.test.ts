import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@agent-run/client';
import { applyEvent, emptyView } from '../../console/src/chat/run-view.ts';
import { eventSummary, systemStatusText } from '../../console/src/event-summary.ts';

describe("the run inspector's line per event", () => {
  it('tells every tool-server status, with the count or the reason', () => {
    expect(systemStatusText({ status: 'tool_server_ready', server: 'linear', tool_count: 1 })).toBe(
      'Tool server linear: ready, 1 tool',
    );
    expect(
      systemStatusText({ status: 'tool_server_retrying', server: 'down', attempt: 2, reason: 'ECONNREFUSED' }),
    ).toBe('Tool server down: retrying (attempt 2) after: ECONNREFUSED');
    expect(
      systemStatusText({ status: 'tool_server_failed', server: 'down', reason: 'fetch failed (ECONNREFUSED)' }),
    ).toBe('Tool server down: failed: fetch failed (ECONNREFUSED). The run goes on without its tools.');
    expect(systemStatusText({ status: 'tool_progress', tool: 'x__op', progress: 2, total: 3, message: 'half' })).toBe(
      'Progress of x__op (tool server x): 2 of 3: half',
    );
    expect(systemStatusText({ status: 'comment_applied' })).toBeUndefined();
  });

  it("names a server's tool call as a built-in one, with its server, also on the events that carry only the call id", () => {
    const names = new Map([
      ['c1', 'linear__create_issue'],
      ['c2', 'save_memory'],
    ]);
    expect(
      eventSummary({ type: 'TOOL_CALL_START', tool_call_id: 'c1', tool_call_name: 'linear__create_issue' }, names),
    ).toBe('Tool call linear__create_issue (tool server linear)');
    expect(eventSummary({ type: 'TOOL_CALL_RESULT', tool_call_id: 'c2', content: '{"ok":true}' }, names)).toBe(
      'Result of save_memory: {"ok":true}',
    );
  });

  it("the chat's run panel keeps each server's last status", () => {
    const status = (data: Record<string, unknown>) =>
      ({ type: 'CUSTOM', name: 'SYSTEM_STATUS', data, run_id: 'r', timestamp: 0 }) as unknown as RunEvent;
    const view = [
      status({ status: 'tool_server_connecting', server: 'a' }),
      status({ status: 'tool_server_connecting', server: 'b' }),
      status({ status: 'tool_server_failed', server: 'b', reason: 'HTTP 401' }),
      status({ status: 'tool_server_ready', server: 'a', tool_count: 3 }),
    ].reduce(applyEvent, { ...emptyView, phase: 'running' as const });
    expect(view.toolServers).toEqual([
      { server: 'a', state: 'ready', text: 'Tool server a: ready, 3 tools' },
      { server: 'b', state: 'failed', text: 'Tool server b: failed: HTTP 401. The run goes on without its tools.' },
    ]);
  });
});
