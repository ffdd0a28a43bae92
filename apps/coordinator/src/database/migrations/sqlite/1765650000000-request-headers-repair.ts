import type { MigrationInterface, QueryRunner } from 'typeorm';
import { repairRequestHeaders } from '../request-headers-repair.js';

/**
 * HTTPS monitors saved before the request-header rules keep only the header lines still allowed
 * (SQLite; docs/decisions/0017-http-edge-hardening.md). Data only; nothing to undo.
 */
export class RequestHeadersRepair1765650000000 implements MigrationInterface {
  name = 'RequestHeadersRepair1765650000000';

  async up(q: QueryRunner): Promise<void> {
    await repairRequestHeaders(q, () => '?');
  }

  async down(): Promise<void> {
    // The refused lines are gone: they could never be sent again anyway.
  }
}
