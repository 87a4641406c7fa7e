-- Per-org limit of concurrent runs (null: unlimited) and where a run of a limited org stands: 'waiting' for a slot or 'held'.
-- AlterTable
ALTER TABLE "orgs" ADD COLUMN "max_concurrent_runs" INTEGER;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN "concurrency_slot" TEXT;

-- CreateIndex
CREATE INDEX "runs_concurrency_slot_created_at_idx" ON "runs"("concurrency_slot", "created_at");
