import { Module } from '@nestjs/common';
import { ContactSecretsBoot } from './contact-secrets.boot.js';
import { ContactsController } from './contacts.controller.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactsService } from './contacts.service.js';

@Module({
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsService, ContactSecretsBoot],
  exports: [ContactsRepository, ContactsService],
})
export class ContactsModule {}
