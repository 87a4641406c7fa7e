import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { apiUrl } from '../support/http.ts';
import { createTenant } from '../support/tenant.ts';

/** The README's SDK program (examples/stream-and-approve.ts), run as a user would, against the real service. */
it('the README example streams a run, approves its tool call and ends with RUN_FINISHED', async () => {
  const tenant = await createTenant();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(projectRoot, 'examples', 'stream-and-approve.ts')],
    {
      cwd: projectRoot,
      env: {
        ...process.env,
        AGENT_RUN_URL: apiUrl(),
        AGENT_RUN_API_KEY: tenant.keys.owner,
        AGENT_RUN_AGENT: tenant.agentId,
      },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code, err).toBe(0);
  expect(out).toContain('hello from the sandbox');
  expect(out.trim().split('\n').at(-1)!.trim()).toBe('RUN_FINISHED');
});
