-- Rate-limit counters need no durability. Every limited request writes its count here, and on a
-- logged table each of those commits waited for a WAL flush (an fsync) just to count a request.
-- An unlogged table writes no WAL, so the commit does not wait. What is given up: after a crash
-- of PostgreSQL the table is empty (every window starts afresh), and a standby has no copy.
ALTER TABLE "rate_limits" SET UNLOGGED;
