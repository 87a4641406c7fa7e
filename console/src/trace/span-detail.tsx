/** What a span of the trace holds: when it began, how long it took, and its fields (arguments, results, messages, answers). */
import { formatDuration, type Span } from './spans.ts';

const KINDS: Record<Span['kind'], string> = {
  run: 'Run',
  queued: 'Queued',
  planning: 'Planning',
  plan_step: 'Plan step',
  model: 'Model step',
  tool: 'Tool call',
  wait: 'Wait for a person',
  pause: 'Pause',
  comment: 'Comment',
  tool_server: 'Tool server',
  sandbox: 'Sandbox',
  artifact: 'Artifact',
  status: 'Status',
};

/** `person` names a user id (the run's user, you); the events say only ids. */
export function SpanDetail({
  span,
  runStart,
  now,
  person,
}: {
  span: Span;
  runStart: number;
  now: number;
  person: (id: string) => string;
}) {
  const took =
    span.end === undefined ? `${formatDuration(now - span.start)} so far` : formatDuration(span.end - span.start);
  return (
    <section class="span-detail" aria-label="Span detail" data-kind={span.kind}>
      <h3>{span.label}</h3>
      <dl>
        <dt>Kind</dt>
        <dd>{KINDS[span.kind]}</dd>
        <dt>Started</dt>
        <dd>
          {new Date(span.start).toLocaleTimeString()} (+{formatDuration(span.start - runStart)})
        </dd>
        <dt>Duration</dt>
        <dd data-testid="detail-duration">{took}</dd>
        {span.outcome === 'error' && (
          <>
            <dt>Outcome</dt>
            <dd class="error">failed</dd>
          </>
        )}
        {span.fields.map((f) => (
          <>
            <dt>{f.label}</dt>
            <dd>{f.block ? <pre>{f.value}</pre> : f.label === 'Answered by' ? person(f.value) : f.value}</dd>
          </>
        ))}
        <dt>Events</dt>
        <dd>{eventList(span.eventIds)}</dd>
      </dl>
    </section>
  );
}

/** The stored events' numbers, `#4 #5 #9`; a long list as its first and last. */
function eventList(ids: string[]): string {
  const seqs = ids.map((id) => `#${id.split(':').pop()}`);
  if (seqs.length === 0) return '—';
  return seqs.length > 8 ? `${seqs.length} events, ${seqs[0]} to ${seqs.at(-1)}` : seqs.join(' ');
}
