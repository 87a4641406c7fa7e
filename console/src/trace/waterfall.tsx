/** The trace's waterfall: one row per span, its bar placed on the run's time axis; a row is a button that selects the span. */
import { formatDuration, type Span } from './spans.ts';

const TICKS = 5;

export function Waterfall({
  spans,
  now,
  selected,
  onSelect,
}: {
  spans: Span[];
  now: number;
  selected?: string;
  onSelect: (id: string) => void;
}) {
  const run = spans[0];
  if (!run) return null;
  const t0 = run.start;
  const total = Math.max(1, (run.end ?? now) - t0);
  const pct = (t: number) => `${(Math.min(Math.max(t - t0, 0), total) / total) * 100}%`;
  return (
    <div class="waterfall" role="group" aria-label="Trace">
      <div class="axis" aria-hidden="true">
        <span class="name" />
        <span class="track">
          {Array.from({ length: TICKS + 1 }, (_, i) => (
            <span class="tick" style={{ left: `${(i / TICKS) * 100}%` }}>
              {formatDuration((total * i) / TICKS)}
            </span>
          ))}
        </span>
        <span class="took" />
      </div>
      <ol>
        {spans.map((span) => {
          const end = span.end ?? now;
          const moment = span.end === span.start && span.kind !== 'run';
          return (
            <li key={span.id}>
              <button
                type="button"
                class={`span-row ${span.outcome}`}
                data-kind={span.kind}
                data-span={span.id}
                aria-pressed={selected === span.id}
                onClick={() => onSelect(span.id)}
              >
                <span class="name" style={{ paddingLeft: `${span.depth * 1.2}rem` }}>
                  {span.label}
                </span>
                <span class="track">
                  <span
                    class={moment ? 'span-mark' : 'span-bar'}
                    style={{
                      left: pct(span.start),
                      width: moment ? undefined : `calc(${pct(end)} - ${pct(span.start)})`,
                    }}
                  />
                </span>
                <span class="took" data-testid="span-duration">
                  {moment ? `at ${formatDuration(span.start - t0)}` : formatDuration(end - span.start)}
                  {span.end === undefined && ' …'}
                </span>
              </button>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
