import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { hashPassword, isPasswordHash } from '../secrets/password-hash.js';
import { StatusPagesRepository } from './status-pages.repository.js';

/**
 * At boot: status-page passwords stored in plain text by an older version are replaced by their
 * scrypt hash (docs/decisions/0020-secrets-at-rest.md). Here rather than in a migration so that
 * both databases share one piece of code and the schema layer imports no feature; until it ran,
 * a plain value still verifies (public-pages.service.ts, basicAuthMatches).
 */
@Injectable()
export class StatusPagePasswordsBoot implements OnApplicationBootstrap {
  private readonly logger = new Logger('Secrets');

  constructor(private readonly pages: StatusPagesRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    const hashed = await this.pages.hashPlaintextPasswords(hashPassword, isPasswordHash);
    if (hashed > 0) this.logger.log(`hashed the basic-auth password of ${hashed} status page(s) stored in plain text`);
  }
}
