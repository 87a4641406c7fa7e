-- Widget visitors are no org members and expire; each widget key has a daily credit budget.
ALTER TABLE "users" ADD COLUMN "visitor" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "visitor_key_id" TEXT,
ADD COLUMN "expires_at" TIMESTAMPTZ(3);

ALTER TABLE "widget_keys" ADD COLUMN "credits_per_day" INTEGER;

-- CreateIndex
CREATE INDEX "users_visitor_key_id_idx" ON "users"("visitor_key_id");

-- CreateIndex
CREATE INDEX "users_org_id_expires_at_idx" ON "users"("org_id", "expires_at");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_visitor_key_id_fkey" FOREIGN KEY ("visitor_key_id") REFERENCES "widget_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Visitors made before this release: guests with the widget's made-up address.
UPDATE "users" SET "visitor" = true, "expires_at" = CURRENT_TIMESTAMP + interval '30 days'
WHERE "role" = 'guest' AND "email" LIKE 'visitor-%@widget.invalid';
