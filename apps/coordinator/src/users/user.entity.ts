import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds } from '../database/columns.js';
import type { Role } from './roles.js';

/** A dashboard user (docs/decisions/0022-users-and-sessions.md). */
@Entity({ name: 'users' })
@Index('idx_users_account_created', ['accountId', 'createdAt'])
@Index('uq_users_email_key', ['emailKey'], { unique: true })
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_users' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_users_account' })
  account?: AccountEntity;

  /** As the user typed it. */
  @Column({ type: 'text' })
  email!: string;

  /** The email lower-cased: unique across every account (sign-in names no account). */
  @Column({ name: 'email_key', type: 'varchar', length: 254 })
  emailKey!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  /** `scrypt$logN$r$p$salt$hash` (secrets/password-hash.ts), or null until the user sets a password (invited). Never answered. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'boolean' })
  disabled!: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;

  @Column({ name: 'last_login_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  lastLoginAt!: number | null;
}

export type OneTimePurpose = 'setup' | 'invite' | 'reset';

/**
 * A one-time token (first-start setup, invitation, password reset): stored as its SHA-256 only,
 * valid 24 hours, used once.
 */
@Entity({ name: 'one_time_tokens' })
@Index('uq_one_time_tokens_hash', ['tokenHash'], { unique: true })
@Index('idx_one_time_tokens_user', ['userId'])
export class OneTimeTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_one_time_tokens' })
  id!: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ type: 'varchar', length: 16 })
  purpose!: OneTimePurpose;

  /** The account a setup token makes the first admin of. */
  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_one_time_tokens_account' })
  account?: AccountEntity;

  /** The user an invitation or reset sets the password of; null for setup. */
  @Column({ name: 'user_id', type: 'varchar', length: 24, nullable: true })
  userId!: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_one_time_tokens_user' })
  user?: UserEntity;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochSeconds })
  expiresAt!: number;

  @Column({ name: 'used_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  usedAt!: number | null;
}
