import { rate } from '../pool.ts';
import { cpuMeter, findTemporalServer } from '../proc.ts';
import type { Floor, FloorStartExtras, FloorWorkflowType } from './measure.ts';

export interface FloorVariant {
  type: FloorWorkflowType;
  extras?: FloorStartExtras;
}

export interface RoundsShape {
  rounds: number;
  runs: number;
  concurrency: number;
}

/** One variant's measured rounds: runs a second, and the CPU ms of the Temporal server and of this process (worker and client) over its `runs`. */
export interface VariantTotals {
  runsPerSecond: number;
  cpu: Record<string, number>;
  runs: number;
}

/**
 * A warm-up round of each variant, then `rounds` rounds in which the variants take turns (so a VM
 * that speeds up or slows down weighs on all alike), each `runs` workflows with `concurrency` in flight.
 */
export async function alternatingRounds(
  floor: Floor,
  temporalAddress: string,
  variants: FloorVariant[],
  { rounds, runs, concurrency }: RoundsShape,
): Promise<VariantTotals[]> {
  const temporalPid = findTemporalServer(temporalAddress);
  if (temporalPid === undefined) throw new Error(`no Temporal dev server found at ${temporalAddress}`);
  const watched = { 'Temporal dev server': temporalPid, 'bench (worker and client)': process.pid };
  for (const v of variants) await floor.throughput(runs, concurrency, v.type, v.extras);
  const totals = variants.map(() => ({ wallMs: 0, cpu: {} as Record<string, number> }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, v] of variants.entries()) {
      const meter = cpuMeter(watched);
      const wallMs = await floor.throughput(runs, concurrency, v.type, v.extras);
      const total = totals[i]!;
      total.wallMs += wallMs;
      for (const [name, ms] of Object.entries(meter())) total.cpu[name] = (total.cpu[name] ?? 0) + ms;
    }
  }
  const measured = rounds * runs;
  return totals.map(({ wallMs, cpu }) => ({ runsPerSecond: rate(measured, wallMs), cpu, runs: measured }));
}
