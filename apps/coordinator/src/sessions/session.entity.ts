import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { epochSeconds } from '../database/columns.js';
import { OneTimeTokenEntity, UserEntity } from '../users/user.entity.js';

/** A dashboard session (docs/decisions/0022-users-and-sessions.md): only the token's SHA-256 is kept. */
@Entity({ name: 'sessions' })
@Index('uq_sessions_token_hash', ['tokenHash'], { unique: true })
@Index('idx_sessions_user', ['userId'])
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_sessions' })
  id!: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 24 })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_sessions_user' })
  user?: UserEntity;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  /** The last recorded use (written at most once a minute). */
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: epochSeconds })
  lastSeenAt!: number;
}

/** The users and sessions tables, for the data source (entities.ts). */
export const USERS_ENTITIES = [UserEntity, OneTimeTokenEntity, SessionEntity];
