import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ContactsRepository } from './contacts.repository.js';

/**
 * At boot (server and CLI alike; docs/decisions/0020-secrets-at-rest.md): stop when the stored
 * contact secrets were sealed with a key this process does not have, then seal those still in
 * plain text (rows from before the upgrade), so nothing is lost and nothing stays readable.
 */
@Injectable()
export class ContactSecretsBoot implements OnApplicationBootstrap {
  private readonly logger = new Logger('Secrets');

  constructor(private readonly contacts: ContactsRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.contacts.checkKeys();
    const sealed = await this.contacts.sealPlaintextRows();
    if (sealed > 0) this.logger.log(`sealed the secrets of ${sealed} contact(s) stored in plain text`);
  }
}
