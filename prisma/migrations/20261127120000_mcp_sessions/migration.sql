-- CreateTable
CREATE TABLE "mcp_sessions" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "init" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mcp_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mcp_calls" (
    "session_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "progress_token" JSONB,
    "agent_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mcp_calls_pkey" PRIMARY KEY ("session_id","request_id")
);

-- CreateIndex
CREATE INDEX "mcp_sessions_last_seen_at_idx" ON "mcp_sessions"("last_seen_at");

-- CreateIndex
CREATE INDEX "mcp_calls_session_id_run_id_idx" ON "mcp_calls"("session_id", "run_id");

-- AddForeignKey
ALTER TABLE "mcp_calls" ADD CONSTRAINT "mcp_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "mcp_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
