/**
 * A service started by `npm start` (src/main/start.ts) gets an IPC channel to it: when that process
 * is gone without stopping it (kill -9), the channel closes and the service stops as on SIGTERM
 * instead of running on unsupervised, holding its port. Started any other way, nothing changes.
 */
export function stopWhenParentGone(stop: () => void): void {
  if (!process.send) return;
  // Gone already, while this process was starting (the channel closed before anyone listened).
  if (!process.connected) return stop();
  process.once('disconnect', stop);
  // The channel alone does not keep the process running.
  process.channel?.unref();
}
