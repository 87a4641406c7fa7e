-- CreateTable
CREATE TABLE "sandbox_identities" (
    "org_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "slot" SERIAL NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_identities_pkey" PRIMARY KEY ("org_id","agent_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_identities_slot_key" ON "sandbox_identities"("slot");

-- AddForeignKey
ALTER TABLE "sandbox_identities" ADD CONSTRAINT "sandbox_identities_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
