import { AgentRunClient, userInputRequest } from '@agent-run/client';

const client = new AgentRunClient({
  baseUrl: process.env.AGENT_RUN_URL!,
  apiKey: process.env.AGENT_RUN_API_KEY!,
  agentId: process.env.AGENT_RUN_AGENT!,
});
const stream = client.runs.stream({
  message: 'Run this:\n/tool run_command {"command":"echo hello from the sandbox"}',
});
for await (const event of stream) {
  if (event.type === 'TEXT_MESSAGE_CONTENT') process.stdout.write(event.delta);
  const request = userInputRequest(event);
  if (request?.input_type === 'action_approval')
    await client.input.answer(await stream.taskId, { ...request, input_type: 'action_approval' }, { approved: true });
}
console.log('\n', (await stream.finalResult()).type);
