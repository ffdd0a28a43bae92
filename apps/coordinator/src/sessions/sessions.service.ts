import { Inject, Injectable, Logger } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { CLOCK, newObjectId, unixSeconds, type Clock } from '#runtime';
import type { Permission } from '../auth/permissions.js';
import { Database } from '../database/database.js';
import { permissionsOfRole, type Role } from '../users/roles.js';
import { UserEntity } from '../users/user.entity.js';
import { SessionEntity } from './session.entity.js';
import {
  csrfTokenOf,
  needsTouch,
  newSessionToken,
  SESSION_ABSOLUTE_SECONDS,
  SESSION_IDLE_SECONDS,
  sessionState,
  tokenHash,
} from './session-rules.js';

/** Who a valid session cookie stands for. */
export interface SessionUser {
  sessionId: string;
  userId: string;
  accountId: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
  /** The CSRF token its state-changing requests must carry. */
  csrfToken: string;
}

/** Expired sessions are deleted at most this often per replica. */
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Dashboard sessions (docs/decisions/0022-users-and-sessions.md): opaque random tokens in a cookie,
 * stored as SHA-256, over after 7 days unused or 30 days after sign-in; the last use is written
 * at most once a minute.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger('Sessions');
  private lastPrune = 0;

  constructor(
    private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A new session of the user; returns the token for the cookie (never stored). */
  async create(userId: string): Promise<string> {
    const token = newSessionToken();
    const now = unixSeconds(this.clock);
    const session = Object.assign(new SessionEntity(), {
      id: newObjectId(this.clock.now()),
      tokenHash: tokenHash(token),
      userId,
      createdAt: now,
      lastSeenAt: now,
    });
    await this.db.transaction((m) => m.insert(SessionEntity, session).then(() => undefined));
    this.prune(now);
    return token;
  }

  /** The session's user, or null when the token is unknown, expired, revoked, or its user disabled. */
  async authenticate(token: string): Promise<SessionUser | null> {
    const session = await this.db.manager.findOneBy(SessionEntity, { tokenHash: tokenHash(token) });
    if (!session) return null;
    const now = unixSeconds(this.clock);
    if (sessionState(session, now) !== 'valid') return null;
    const user = await this.db.manager.findOneBy(UserEntity, { id: session.userId });
    if (!user || user.disabled || user.passwordHash === null) return null;
    if (needsTouch(session, now)) {
      // Awaited (it is rare: see needsTouch): the next request must find this use, or a busy
      // session could read as idle and end. A failed write does not fail the request.
      await this.db.manager.update(SessionEntity, { id: session.id }, { lastSeenAt: now }).catch((error: unknown) => {
        this.logger.warn(`could not record the use of session ${session.id}: ${String(error)}`);
      });
    }
    return {
      sessionId: session.id,
      userId: user.id,
      accountId: user.accountId,
      role: user.role,
      permissions: new Set(permissionsOfRole(user.role)),
      csrfToken: csrfTokenOf(token),
    };
  }

  /** Ends the session of this token (sign-out); nothing when there is none. */
  async revoke(token: string): Promise<void> {
    await this.db.transaction((m) => m.delete(SessionEntity, { tokenHash: tokenHash(token) }).then(() => undefined));
  }

  private prune(now: number): void {
    if (this.clock.now() - this.lastPrune < PRUNE_INTERVAL_MS) return;
    this.lastPrune = this.clock.now();
    const work = async () => {
      await this.db.manager.delete(SessionEntity, { lastSeenAt: LessThan(now - SESSION_IDLE_SECONDS) });
      await this.db.manager.delete(SessionEntity, { createdAt: LessThan(now - SESSION_ABSOLUTE_SECONDS) });
    };
    work().catch((error: unknown) => this.logger.warn(`could not delete expired sessions: ${String(error)}`));
  }
}
