import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import { CLOCK, isObjectId, newObjectId, unixSeconds, type Clock } from '#runtime';
import { lockAccount } from '../auth/account-gate.js';
import { AdminError } from '../auth/accounts.service.js';
import { pageOffset, pageRequest, paginationOf, type Pagination } from '../common/pagination.js';
import { CoordinatorConfig } from '../config.js';
import { AppError, notFound, validationError } from '../errors.js';
import { FailureThrottle, tooManyFailures } from '../rate-limit/failure-throttle.js';
import { tokenHash } from '../sessions/session-rules.js';
import { PasswordHasher } from './passwords.js';
import { publicBase, tokenUrl } from './public-base.js';
import type { Role } from './roles.js';
import { OneTimeTokenEntity, UserEntity, type OneTimePurpose } from './user.entity.js';
import {
  DEFAULT_USERS_PER_PAGE,
  type CreateUserDto,
  type ListUsersQuery,
  type SetPasswordDto,
  type SetupDto,
  type UpdateUserDto,
} from './users.dto.js';
import { UsersRepository } from './users.repository.js';

/** One-time tokens (setup, invitation, reset) last this long. */
export const ONE_TIME_TOKEN_SECONDS = 86_400;

/** A user as the API answers it: never the password hash. */
export interface UserJson {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  created_at: number;
  last_login_at: number | null;
}

export function toUserJson(user: UserEntity): UserJson {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    disabled: user.disabled,
    created_at: user.createdAt,
    last_login_at: user.lastLoginAt,
  };
}

const badToken = () =>
  new AppError('UNAUTHORIZED', 'This link is invalid, expired or already used; ask an admin for a new one.');
const signInRefused = () => new AppError('UNAUTHORIZED', 'The email or password is wrong.');
const lastAdmin = (field: string) =>
  validationError(
    [{ field, message: 'the last admin of the account cannot be removed, disabled or demoted' }],
    'The account must keep at least one enabled admin: make another user admin first.',
  );
const emailTaken = () =>
  validationError([{ field: 'email', message: 'is already used by another user' }], 'The request is invalid.');

/**
 * Dashboard users (docs/decisions/0022-users-and-sessions.md): sign-in, first-start setup,
 * invitations and password resets through one-time tokens, and the admin's management.
 */
@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  constructor(
    private readonly users: UsersRepository,
    private readonly throttle: FailureThrottle,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly hasher: PasswordHasher,
  ) {}

  // ---- sign-in ---------------------------------------------------------------------------

  /**
   * The user whose email and password these are, or 401 (the same whether the email exists or
   * not, after the same scrypt work), or 429 once the client address or the email has spent its
   * budget of failures (AUTH_FAILURES_PER_HOUR each). A spent budget refuses even the right
   * password, so the answer never tells a throttled guesser that it won; and it is refused
   * before the password is checked, so a throttled guesser costs no scrypt work (128 MiB each).
   */
  async signIn(email: string, password: string, address: string | undefined): Promise<UserEntity> {
    const spent = (await this.throttle.spent('password', address)) ?? (await this.throttle.spentEmail(email));
    if (spent) throw tooManyFailures(spent);
    const user = await this.users.findByEmailKey(email.toLowerCase());
    const usable = user !== null && !user.disabled ? user.passwordHash : null;
    const matches = await this.hasher.verify(password, usable);
    if (matches && user) {
      await this.users.setLastLogin(user.id, unixSeconds(this.clock));
      return user;
    }
    const byAddress = await this.throttle.failed('password', address);
    const byEmail = await this.throttle.failedEmail(email);
    const refusal = byAddress ?? byEmail;
    throw refusal ? tooManyFailures(refusal) : signInRefused();
  }

  // ---- one-time tokens ----------------------------------------------------------------------

  /**
   * While no user exists: a new setup token for the first admin of the `default` account, as
   * the setup URL, or null when users exist (or there is no account yet). Each call makes a
   * new token; older unused ones stay valid until they expire or one is used.
   */
  async issueSetupUrl(): Promise<string | null> {
    if ((await this.users.countUsers()) > 0) return null;
    const account = await this.users.defaultAccount();
    if (!account) return null;
    const token = await this.newToken('setup', account.id, null);
    return tokenUrl(publicBase(this.config), 'setup', token);
  }

  /** Creates the first admin with a setup token; 401 when the token is not usable or a user exists. */
  async setup(dto: SetupDto): Promise<UserEntity> {
    const passwordHash = await this.hasher.hash(dto.password);
    const now = unixSeconds(this.clock);
    return this.users.transaction(async (m) => {
      const token = await this.users.usableToken(m, tokenHash(dto.token), ['setup'], now);
      // Two setups with two tokens at once: the account's lock makes the second see the first's admin.
      if (token) await lockAccount(m, this.users.dialect, token.accountId);
      if (!token || (await m.count(UserEntity)) > 0) throw badToken();
      const user = this.userEntity(token.accountId, dto.email, dto.name, 'admin', passwordHash);
      if (await m.findOneBy(UserEntity, { emailKey: user.emailKey })) throw emailTaken();
      await m.insert(UserEntity, user);
      await this.users.retireTokens(m, { purpose: 'setup' }, now);
      return user;
    });
  }

  /** Sets a password with an invitation or reset token; ends every session of the user. 401 for a bad token. */
  async setPassword(dto: SetPasswordDto): Promise<UserEntity> {
    const passwordHash = await this.hasher.hash(dto.password);
    const now = unixSeconds(this.clock);
    return this.users.transaction(async (m) => {
      const token = await this.users.usableToken(m, tokenHash(dto.token), ['invite', 'reset'], now);
      const user = token?.userId ? await m.findOneBy(UserEntity, { id: token.userId }) : null;
      if (!token || !user || user.disabled) throw badToken();
      await m.update(UserEntity, { id: user.id }, { passwordHash, updatedAt: now });
      await this.users.retireTokens(m, { userId: user.id }, now);
      await this.users.revokeSessions(m, user.id);
      return user;
    });
  }

  // ---- the admin's API ---------------------------------------------------------------------

  async list(accountId: string, query: ListUsersQuery): Promise<{ users: UserJson[]; pagination: Pagination }> {
    const request = pageRequest(query, DEFAULT_USERS_PER_PAGE);
    const total = (await this.users.page(accountId, null, 0, 'ASC'))[1];
    const offset = pageOffset(request, total);
    const [rows] = await this.users.page(accountId, offset, request.perPage, query.order === 'asc' ? 'ASC' : 'DESC');
    return { users: rows.map(toUserJson), pagination: paginationOf(request, total) };
  }

  /** A new user of the account, without a password yet, and the one-time URL that sets it. */
  async invite(accountId: string, dto: CreateUserDto): Promise<{ user: UserEntity; setPasswordUrl: string }> {
    const user = this.userEntity(accountId, dto.email, dto.name, dto.role, null);
    const token = await this.users
      .transaction(async (m) => {
        if (await m.findOneBy(UserEntity, { emailKey: user.emailKey })) throw emailTaken();
        await m.insert(UserEntity, user);
        return this.newToken('invite', accountId, user.id, m);
      })
      .catch((error: unknown) => {
        // Two creates of one email racing past the check: the unique index decides.
        throw error instanceof QueryFailedError ? emailTaken() : error;
      });
    return { user, setPasswordUrl: tokenUrl(publicBase(this.config), 'set-password', token) };
  }

  /** Changes name, role or disabled; the account keeps an enabled admin; disabling ends the user's sessions. */
  async update(accountId: string, id: string, dto: UpdateUserDto): Promise<UserEntity> {
    return this.users.inAccount(accountId, async (m) => {
      const user = await m.findOneBy(UserEntity, { id, accountId });
      if (!user) throw notFound.user();
      const next = {
        name: dto.name ?? user.name,
        role: dto.role ?? user.role,
        disabled: dto.disabled ?? user.disabled,
      };
      const wasAdmin = user.role === 'admin' && !user.disabled && user.passwordHash !== null;
      const staysAdmin = next.role === 'admin' && !next.disabled;
      if (wasAdmin && !staysAdmin && (await this.users.otherAdmins(m, accountId, id)) === 0) {
        throw lastAdmin(next.role !== 'admin' ? 'role' : 'disabled');
      }
      Object.assign(user, next, { updatedAt: unixSeconds(this.clock) });
      await m.update(UserEntity, { id }, { ...next, updatedAt: user.updatedAt });
      if (next.disabled) await this.users.revokeSessions(m, id);
      return user;
    });
  }

  /** Deletes a user (their sessions and tokens go with them); never the last enabled admin. */
  async remove(accountId: string, id: string): Promise<void> {
    await this.users.inAccount(accountId, async (m) => {
      const user = await m.findOneBy(UserEntity, { id, accountId });
      if (!user) throw notFound.user();
      const signsInAsAdmin = user.role === 'admin' && !user.disabled && user.passwordHash !== null;
      if (signsInAsAdmin && (await this.users.otherAdmins(m, accountId, id)) === 0) {
        throw lastAdmin('id');
      }
      await this.users.revokeSessions(m, id);
      await m.delete(UserEntity, { id });
    });
  }

  findInAccount(accountId: string, id: string): Promise<UserEntity | null> {
    return this.users.findInAccount(accountId, id);
  }

  // ---- the admin CLI ------------------------------------------------------------------------

  async cliCreate(accountId: string, email: string, role: Role): Promise<{ user: UserEntity; setPasswordUrl: string }> {
    if (!isObjectId(accountId) || !(await this.users.findAccount(accountId))) {
      throw new AdminError(`no account with id ${accountId}`);
    }
    const name = email.slice(0, email.lastIndexOf('@')).slice(0, 100) || email.slice(0, 100);
    return this.invite(accountId, { email, name, role }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'VALIDATION_ERROR') {
        throw new AdminError(`a user with the email ${email} already exists`);
      }
      throw error;
    });
  }

  /** A one-time URL that sets a new password (the old one keeps working until then). */
  async cliResetPassword(userId: string): Promise<{ user: UserEntity; setPasswordUrl: string }> {
    const user = isObjectId(userId) ? await this.users.findById(userId) : null;
    if (!user) throw new AdminError(`no user with id ${userId}`);
    if (user.disabled) throw new AdminError(`the user ${userId} is disabled`);
    const token = await this.newToken('reset', user.accountId, user.id);
    return { user, setPasswordUrl: tokenUrl(publicBase(this.config), 'set-password', token) };
  }

  async cliList(accountId: string): Promise<UserEntity[]> {
    if (!isObjectId(accountId) || !(await this.users.findAccount(accountId))) {
      throw new AdminError(`no account with id ${accountId}`);
    }
    return this.users.ofAccount(accountId);
  }

  /** Disables a user and ends their sessions (the operator's word: even the last admin). */
  async cliDisable(userId: string): Promise<UserEntity> {
    const user = isObjectId(userId) ? await this.users.findById(userId) : null;
    if (!user) throw new AdminError(`no user with id ${userId}`);
    const now = unixSeconds(this.clock);
    await this.users.transaction(async (m) => {
      await m.update(UserEntity, { id: userId }, { disabled: true, updatedAt: now });
      await this.users.retireTokens(m, { userId }, now);
      await this.users.revokeSessions(m, userId);
    });
    return Object.assign(user, { disabled: true, updatedAt: now });
  }

  // ---- helpers -------------------------------------------------------------------------------

  private userEntity(accountId: string, email: string, name: string, role: Role, passwordHash: string | null) {
    const now = this.clock.now();
    return Object.assign(new UserEntity(), {
      id: newObjectId(now),
      accountId,
      email,
      emailKey: email.toLowerCase(),
      name,
      role,
      passwordHash,
      disabled: false,
      createdAt: Math.floor(now / 1000),
      updatedAt: Math.floor(now / 1000),
      lastLoginAt: null,
    });
  }

  /** A new one-time token (stored as its SHA-256); returns the token itself. */
  private async newToken(
    purpose: OneTimePurpose,
    accountId: string,
    userId: string | null,
    m?: Parameters<UsersRepository['insertToken']>[1],
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = unixSeconds(this.clock);
    const row = Object.assign(new OneTimeTokenEntity(), {
      id: newObjectId(this.clock.now()),
      tokenHash: tokenHash(token),
      purpose,
      accountId,
      userId,
      createdAt: now,
      expiresAt: now + ONE_TIME_TOKEN_SECONDS,
      usedAt: null,
    });
    if (m) {
      await this.users.insertToken(row, m);
      return token;
    }
    await this.users.transaction((tx) => this.users.insertToken(row, tx));
    this.users.pruneTokens(now).catch((error: unknown) => {
      this.logger.warn(`could not delete expired one-time tokens: ${String(error)}`);
    });
    return token;
  }
}
