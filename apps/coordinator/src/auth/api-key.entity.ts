import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity.js';
import { epochSeconds } from '../database/columns.js';

@Entity({ name: 'api_keys' })
@Index('idx_api_keys_account', ['accountId'])
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_api_keys' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_api_keys_account' })
  account?: AccountEntity;

  /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash!: string;

  /** What the operator called it (`keys create --name`); '' when unnamed. */
  @Column({ type: 'text', default: '' })
  name!: string;

  /** The first characters of the key, for people to recognise it in listings. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** Comma-separated permission names. */
  @Column({ type: 'text' })
  permissions!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  revokedAt!: number | null;

  @Column({ name: 'last_used_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  lastUsedAt!: number | null;
}

/** The auth feature's tables, for the data source (entities.ts). */
export const AUTH_ENTITIES = [AccountEntity, ApiKeyEntity];
