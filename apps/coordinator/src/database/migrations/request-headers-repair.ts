import type { QueryRunner } from 'typeorm';
import { keepSendableHeaderLines } from '#contracts';

/**
 * The data step of RequestHeadersRepair (both dialects; `placeholder(n)` is the dialect's n-th
 * parameter): HTTPS monitors saved before the request-header rules of
 * docs/decisions/0017-http-edge-hardening.md keep the header lines that are still allowed. The
 * probe wire refuses a request carrying a refused header, so without this such a monitor's
 * every check would be UNKNOWN.
 */
export async function repairRequestHeaders(q: QueryRunner, placeholder: (n: number) => string): Promise<void> {
  const rows = (await q.query(
    `SELECT "id", "settings" FROM "monitors" WHERE "monitor_type" = 'https' AND "settings" LIKE '%request_headers%'`,
  )) as { id: string; settings: string }[];
  for (const row of rows) {
    const settings = JSON.parse(row.settings) as Record<string, unknown>;
    const headers = settings.request_headers;
    if (typeof headers !== 'string') continue;
    const kept = keepSendableHeaderLines(headers);
    if (kept === headers) continue;
    if (kept === undefined) delete settings.request_headers;
    else settings.request_headers = kept;
    await q.query(`UPDATE "monitors" SET "settings" = ${placeholder(1)} WHERE "id" = ${placeholder(2)}`, [
      JSON.stringify(settings),
      row.id,
    ]);
  }
}
