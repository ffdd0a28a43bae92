import { Injectable } from '@nestjs/common';
import { verifyPassword } from '../secrets/password-hash.js';

/**
 * A status page's basic-auth password check (scrypt) as an injectable, so that what it costs is
 * a seam: a guesser past its failure budget must not reach it (public-pages.service.ts,
 * docs/decisions/0018-abuse-limits-and-quotas.md).
 */
@Injectable()
export class PagePasswordCheck {
  verify(given: Buffer, stored: string): Promise<boolean> {
    return verifyPassword(given, stored);
  }
}
