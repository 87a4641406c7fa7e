import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { Config } from '../config.ts';

/**
 * The Worker Deployment Version of a worker running `code`: WORKER_BUILD_ID, else a hash of the
 * bundle, so the same workflow code always gets the same build id and changed code a new one.
 */
export function workerVersion(config: Config, code: string): WorkerDeploymentVersion {
  const buildId = config.workerVersion.buildId ?? createHash('sha256').update(code).digest('hex').slice(0, 16);
  return { deploymentName: config.workerVersion.deploymentName, buildId };
}

/**
 * Every run stays on the version it started on (PINNED): a new build never replays a history an
 * older build wrote, so changing workflow code needs no patched() for runs in flight.
 */
export function pinnedDeploymentOptions(version: WorkerDeploymentVersion): WorkerDeploymentOptions {
  return { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' };
}

/**
 * The workflow bundles this host has run, one file per build id, so a restarted worker can
 * still run the older builds its pinned runs need (older-builds.ts).
 */
export class BundleStore {
  constructor(private readonly dir: string) {}

  /** DATA_DIR/workflow-bundles/<deployment>/: one store per deployment, as build ids are per deployment. */
  static of(config: Config): BundleStore {
    const deployment = encodeURIComponent(config.workerVersion.deploymentName);
    return new BundleStore(path.join(config.dataDir, 'workflow-bundles', deployment));
  }

  keep(buildId: string, code: string): void {
    const file = this.file(buildId);
    if (existsSync(file)) return;
    mkdirSync(this.dir, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, file); // whole or absent, even when the process dies mid-write
  }

  buildIds(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.js'))
      .map((name) => name.slice(0, -'.js'.length));
  }

  read(buildId: string): string {
    return readFileSync(this.file(buildId), 'utf8');
  }

  forget(buildId: string): void {
    rmSync(this.file(buildId), { force: true });
  }

  private file(buildId: string): string {
    return path.join(this.dir, `${buildId}.js`);
  }
}
