-- CreateTable
CREATE TABLE "widget_keys" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "origins" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "widget_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "widget_keys_hash_key" ON "widget_keys"("hash");

-- CreateIndex
CREATE INDEX "widget_keys_org_id_idx" ON "widget_keys"("org_id");

-- CreateIndex
CREATE INDEX "widget_keys_agent_id_idx" ON "widget_keys"("agent_id");

-- AddForeignKey
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
