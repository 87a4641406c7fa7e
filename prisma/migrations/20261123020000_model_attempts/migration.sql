-- CreateTable
CREATE TABLE "model_attempts" (
    "run_id" TEXT NOT NULL,
    "activity_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "discarded" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "model_attempts_pkey" PRIMARY KEY ("run_id","activity_id","attempt")
);

-- CreateTable
CREATE TABLE "tool_executions" (
    "run_id" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "output" JSONB,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "tool_executions_pkey" PRIMARY KEY ("run_id","tool_call_id")
);

-- AddForeignKey
ALTER TABLE "model_attempts" ADD CONSTRAINT "model_attempts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_executions" ADD CONSTRAINT "tool_executions_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
