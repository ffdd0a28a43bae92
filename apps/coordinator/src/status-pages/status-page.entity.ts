import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds, jsonText } from '../database/columns.js';

/** A public status page (docs/decisions/0008-status-pages.md). */
@Entity({ name: 'status_pages' })
@Index('idx_status_pages_account_created', ['accountId', 'createdAt'])
@Index('uq_status_pages_custom_domain', ['customDomain'], { unique: true })
export class StatusPageEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_status_pages' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_status_pages_account' })
  account?: AccountEntity;

  @Column({ type: 'text' })
  name!: string;

  /** Monitor ids, in display order. */
  @Column({ type: 'text', transformer: jsonText })
  monitors!: string[];

  /** Days shown: 7, 30 or 90. */
  @Column({ type: 'integer' })
  period!: number;

  /** Lower-case host name, unique across accounts. */
  @Column({ name: 'custom_domain', type: 'varchar', length: 253, nullable: true })
  customDomain!: string | null;

  @Column({ name: 'show_incident_reasons', type: 'boolean' })
  showIncidentReasons!: boolean;

  /**
   * The scrypt hash of `user:password` (secrets/password-hash.ts), or null; a row from before
   * hashing holds the plain value until the next boot hashes it (docs/decisions/0020-secrets-at-rest.md).
   */
  @Column({ name: 'basic_auth', type: 'text', nullable: true })
  basicAuth!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;
}

/** The status-pages feature's table, for the data source (entities.ts). */
export const STATUS_PAGES_ENTITIES = [StatusPageEntity];
