const SUMMARY_WORDS = 8;
const SUMMARY_CHARS = 60;

/**
 * The workflow's one-line summary in the Temporal UI's list: the agent and the first words of the request.
 * Never the whole message, and words that look like a token or key (long, without spaces) are left out.
 */
export function runSummary(agentName: string, request: string | undefined, taskId: string): string {
  const words = (request ?? '')
    .split(/\s+/)
    .filter((w) => w && !/^[\w\-.:/+=]{24,}$/.test(w))
    .slice(0, SUMMARY_WORDS + 1);
  if (words.length === 0) return `${agentName} · task ${taskId}`;
  let text = words.slice(0, SUMMARY_WORDS).join(' ');
  if (text.length > SUMMARY_CHARS) text = text.slice(0, SUMMARY_CHARS).trimEnd();
  const cut = text.length < words.join(' ').length;
  return `${agentName}: ${text}${cut ? '…' : ''}`;
}
