import { z } from 'zod';

// An ISO 8601 date-time with a zone (Z or ±hh:mm), or a plain date (UTC midnight), as GET /api/runs takes them.
const isoTime = z.iso.datetime({ offset: true }).or(z.iso.date());

/** The longest window GET /api/admin/usage sums at once. */
export const USAGE_MAX_DAYS = 366;
/** The window when `since` is left out: this many UTC days, today included. */
export const USAGE_DEFAULT_DAYS = 30;

export const usageQuery = z.object({
  since: isoTime
    .optional()
    .describe(
      `Runs created at or after this time (ISO 8601; default: midnight UTC ${USAGE_DEFAULT_DAYS - 1} days ago)`,
    ),
  until: isoTime.optional().describe('Runs created before this time (ISO 8601; default: now)'),
  agent_id: z.string().min(1).max(100).optional().describe('Only runs of this agent'),
});
export type UsageQuery = z.infer<typeof usageQuery>;

const figures = {
  runs: z.number().int().describe('Runs created'),
  failed_runs: z.number().int().describe('Of those, runs that ended `failed`'),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  credits: z.number().int().describe('Credits the runs were billed (a run still going: what it was billed so far, 0)'),
};

export const usageSchema = z
  .object({
    since: z.string().describe('Start of the window (ISO 8601 UTC, inclusive)'),
    until: z.string().describe('End of the window (ISO 8601 UTC, exclusive)'),
    days: z
      .array(
        z.object({
          day: z.string().describe('The UTC day the runs were created (YYYY-MM-DD)'),
          agent_id: z.string(),
          agent_name: z.string(),
          ...figures,
        }),
      )
      .describe('One row per UTC day and agent that had runs, oldest day first, then by agent name'),
    agents: z
      .array(z.object({ agent_id: z.string(), agent_name: z.string(), ...figures }))
      .describe('The window per agent, most credits first'),
    totals: z.object(figures).describe('The whole window'),
    credits: z
      .object({
        balance: z.string().describe("The org's credit balance now"),
        daily_rate: z
          .number()
          .describe('Credits a day of the runs of the last 7 days (of the days since the org was created, if fewer)'),
        days_left: z
          .number()
          .nullable()
          .describe('How many days the balance lasts at that rate; null: nothing used lately'),
        low: z.boolean().describe('No credits left, or fewer than 3 days of them at the recent rate'),
        warning: z.string().nullable().describe('Why credits are low, in a sentence; null when they are not'),
      })
      .describe('Credits left and how long they last; the window does not change it'),
  })
  .meta({ id: 'Usage' });
