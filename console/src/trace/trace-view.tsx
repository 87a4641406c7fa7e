/** The trace of a run: its waterfall, and the detail of the span picked in it (the run's own at first). */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RunEventRecord } from '@agent-run/client';
import { SpanDetail } from './span-detail.tsx';
import { buildSpans, type TraceRecord } from './spans.ts';
import { Waterfall } from './waterfall.tsx';

export function TraceView({
  records,
  live,
  person,
}: {
  records: RunEventRecord[];
  /** The run goes on: open spans grow with the clock. */
  live: boolean;
  person: (id: string) => string;
}) {
  const spans = useMemo(() => buildSpans(records as unknown as TraceRecord[]), [records]);
  const [selected, setSelected] = useState<string>();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!live) return;
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, [live, records]);
  const run = spans[0];
  if (!run) return null;
  const span = spans.find((s) => s.id === selected) ?? run;
  // A finished run's clock stops at its last event.
  const clock = live
    ? Math.max(now, records.at(-1)?.payload.timestamp ?? now)
    : (records.at(-1)?.payload.timestamp ?? now);
  return (
    <div class="trace">
      <Waterfall spans={spans} now={clock} selected={span.id} onSelect={setSelected} />
      <SpanDetail span={span} runStart={run.start} now={clock} person={person} />
    </div>
  );
}
