/** One measured row of the printed table. Times are milliseconds. */
export interface Row {
  section: string;
  metric: string;
  n: number;
  median?: number;
  p95?: number;
  max?: number;
  /** Free text for the last column: throughput, or a value that is not a distribution (memory). */
  note?: string;
}

/** Nearest-rank percentile of `sorted` (ascending); p in (0, 100]. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Median, p95 and max of the samples as a table row. */
export function distribution(section: string, metric: string, samples: number[], note?: string): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    section,
    metric,
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1),
    note,
  };
}

export function perSecond(count: number, ms: number, unit: string): string {
  const rate = (count * 1000) / ms;
  return `${rate >= 100 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1)} ${unit}/s`;
}

export const fmt = (ms: number | undefined) =>
  ms === undefined || Number.isNaN(ms) ? '' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);

/** A Markdown table, columns padded so the output reads in a terminal and pastes into docs/performance.md as is. */
export function markdownTable(header: string[], lines: string[][], rightAligned: number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const right = (i: number) => rightAligned.includes(i);
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (right(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...lines.map(line)].join('\n');
}

/** The distribution rows as a Markdown table. */
export function renderTable(rows: Row[]): string {
  const header = ['section', 'metric', 'n', 'median ms', 'p95 ms', 'max ms', 'throughput / value'];
  const lines = rows.map((r) => [
    r.section,
    r.metric,
    String(r.n),
    fmt(r.median),
    fmt(r.p95),
    fmt(r.max),
    r.note ?? '',
  ]);
  return markdownTable(header, lines, [2, 3, 4, 5]);
}

/** One line of the targets table: our figure beside Temporal's floor (where the issue defines one) and the target. */
export interface TargetRow {
  metric: string;
  ours: string;
  floor?: string;
  /** ours ÷ floor (or the ratio the target names), e.g. "1.43×". */
  ratio?: string;
  target: string;
  met: boolean;
}

export function renderTargets(rows: TargetRow[]): string {
  const header = ['target', 'ours', 'floor', 'ratio', 'goal', 'met'];
  const lines = rows.map((r) => [r.metric, r.ours, r.floor ?? '—', r.ratio ?? '—', r.target, r.met ? 'yes' : '**no**']);
  return markdownTable(header, lines, [1, 2, 3]);
}

/** Nearest-rank percentile of unsorted samples. */
export const percentileOf = (samples: number[], p: number) =>
  percentile(
    [...samples].sort((a, b) => a - b),
    p,
  );
export const median = (samples: number[]) => percentileOf(samples, 50);
export const ratio = (x: number) => `${x.toFixed(2)}×`;
