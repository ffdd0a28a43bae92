import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds, jsonText } from '../database/columns.js';
import type { Channel } from './channels.js';

/** The shape of a contact's `error` once a delivery problem was recorded (docs/decisions/0006-contacts.md). */
export interface ContactError {
  code: string;
  message: string;
  failed_at: number;
  consecutive_failures: number;
}

@Entity({ name: 'contacts' })
@Index('idx_contacts_account_created', ['accountId', 'createdAt'])
export class ContactEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_contacts' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_contacts_account' })
  account?: AccountEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  channel!: Channel;

  /**
   * Channel details. Loaded through ContactsRepository: in full, secrets included (never returned
   * as they are). In the table: each secret field set is [REDACTED], its value in sealedSecrets
   * (docs/decisions/0020-secrets-at-rest.md); a row from before sealing holds them in plain text
   * until the boot-time sealing or the next write.
   */
  @Column({ type: 'text', transformer: jsonText })
  details!: Record<string, unknown>;

  /** The secret fields' values as JSON, sealed with AES-256-GCM (secrets/secret-box.ts); null when not sealed. */
  @Column({ name: 'sealed_secrets', type: 'text', nullable: true })
  sealedSecrets?: string | null;

  /** The id of the key that sealed them (rotation finds what is left to re-seal by it). */
  @Column({ name: 'secrets_key_id', type: 'varchar', length: 16, nullable: true })
  secretsKeyId?: string | null;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'down_alerts_only', type: 'boolean' })
  downAlertsOnly!: boolean;

  @Column({ type: 'text', nullable: true, transformer: jsonText })
  error!: ContactError | null;

  @Column({ name: 'consecutive_failures', type: 'integer', default: 0 })
  consecutiveFailures!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;
}

/** The contacts feature's tables, for the data source (entities.ts). */
export const CONTACTS_ENTITIES = [ContactEntity];
