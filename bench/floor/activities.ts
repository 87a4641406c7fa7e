/**
 * The floor's only activity: it does nothing but say when it started (epoch ms, the same
 * clock as the bench process, which started the workflow).
 */
export async function floorActivity(): Promise<number> {
  return Date.now();
}

export type FloorActivities = { floorActivity: typeof floorActivity };
