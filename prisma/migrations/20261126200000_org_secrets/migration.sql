-- CreateTable
CREATE TABLE "org_secrets" (
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sealed" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_secrets_pkey" PRIMARY KEY ("org_id","name")
);

-- AddForeignKey
ALTER TABLE "org_secrets" ADD CONSTRAINT "org_secrets_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Messaging flows no longer name a worker environment variable or their own Slack address:
-- the bot token is an org secret (bot_token_secret), the address the operator's SLACK_API_URL.
-- A flow stored with the old fields keeps them nowhere, and its replies fail until the secret is named.
UPDATE "flows" SET "config" = "config" - 'bot_token_env' - 'api_url' WHERE "kind" = 'messaging';
