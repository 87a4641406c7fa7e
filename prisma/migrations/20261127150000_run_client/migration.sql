-- The client a run was started from (cli, sdk, console, mcp, ag-ui), for the runs list's source filter.
ALTER TABLE "runs" ADD COLUMN "client" TEXT;
