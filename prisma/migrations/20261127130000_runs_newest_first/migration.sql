-- GET /api/runs lists an org's runs newest first across tasks: walk this index instead of sorting every run.
-- CreateIndex
CREATE INDEX "runs_created_at_id_idx" ON "runs"("created_at" DESC, "id" DESC);
