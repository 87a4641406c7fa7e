-- CreateTable
CREATE TABLE "sandbox_leases" (
    "org_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "host_id" TEXT NOT NULL,
    "task_queue" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "acquired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_leases_pkey" PRIMARY KEY ("org_id","agent_id")
);

-- CreateIndex
CREATE INDEX "sandbox_leases_host_id_idx" ON "sandbox_leases"("host_id");

-- AddForeignKey
ALTER TABLE "sandbox_leases" ADD CONSTRAINT "sandbox_leases_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
