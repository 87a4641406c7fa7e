-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "billed_at" TIMESTAMPTZ(3),
ADD COLUMN     "credits_used" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "run_comments" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "run_comments_run_id_created_at_idx" ON "run_comments"("run_id", "created_at");

-- AddForeignKey
ALTER TABLE "run_comments" ADD CONSTRAINT "run_comments_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
