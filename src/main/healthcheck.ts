/**
 * `node dist/main/healthcheck.js <url>`: the compose healthchecks' probe (the slim image has
 * no curl). Exits 0 when the URL answers 2xx within 5 s, 1 otherwise, printing why.
 */
const url = process.argv[2];
if (!url) {
  console.error('usage: healthcheck <url>');
  process.exit(2);
}
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  await response.body?.cancel();
  if (!response.ok) {
    console.error(`${url}: HTTP ${response.status}`);
    process.exit(1);
  }
} catch (err) {
  console.error(`${url}: ${(err as Error).message}`);
  process.exit(1);
}
