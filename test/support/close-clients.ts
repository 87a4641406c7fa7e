import { afterAll } from 'vitest';
import { closeTemporalConnection } from './runs.ts';
import { closeTestDb } from './tenant.ts';

// Every test file: close the shared clients its helpers opened, so the run can exit promptly.
afterAll(async () => {
  await closeTestDb();
  await closeTemporalConnection();
});
