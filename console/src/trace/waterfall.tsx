/** The trace's waterfall: one row per span, its bar placed on the run's time axis; a row is a button that selects the span. */
import { formatDuration, type Span } from './spans.ts';

/** Round steps between ticks: milliseconds, seconds, minutes, hours. */
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3,
];
const HOUR = 3600e3;

/** The roundest step giving at most about five ticks. */
function tickStep(total: number): number {
  const raw = total / 5;
  return STEPS.find((step) => step >= raw) ?? Math.ceil(raw / HOUR) * HOUR;
}

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
  const step = tickStep(total);
  const pct = (t: number) => `${(Math.min(Math.max(t - t0, 0), total) / total) * 100}%`;
  return (
    <div class="waterfall" role="group" aria-label="Trace">
      <div class="axis" aria-hidden="true">
        <span class="name" />
        <span class="track">
          {Array.from({ length: Math.floor(total / step) + 1 }, (_, i) => (
            <span key={i} class="tick" style={{ left: `${((i * step) / total) * 100}%` }}>
              {formatDuration(i * step)}
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
