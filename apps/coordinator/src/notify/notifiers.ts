import { createAlertingNotifier } from './channels/alerting/alerting.notifier.js';
import { createChatoneNotifier } from './channels/chatone/chatone.notifier.js';
import { createChatthreeNotifier } from './channels/chatthree/chatthree.notifier.js';
import { createChattwoNotifier } from './channels/chattwo/chattwo.notifier.js';
import { createEmailNotifier } from './channels/email/email.notifier.js';
import { createIncidentmgmtNotifier } from './channels/incidentmgmt/incidentmgmt.notifier.js';
import { createPagingNotifier } from './channels/paging/paging.notifier.js';
import { createPushNotifier } from './channels/push/push.notifier.js';
import { createTicketingNotifier } from './channels/ticketing/ticketing.notifier.js';
import { createWebhookNotifier } from './channels/webhook/webhook.notifier.js';
import type { NotifierDeps } from './notifier-deps.js';
import type { NotifierTable } from './notifier.js';

/** The notifier table: one line per channel. */
export function createNotifierTable(deps: NotifierDeps): NotifierTable {
  return {
    email: createEmailNotifier(deps),
    webhook: createWebhookNotifier(deps),
    chatone: createChatoneNotifier(deps),
    chattwo: createChattwoNotifier(deps),
    chatthree: createChatthreeNotifier(deps),
    paging: createPagingNotifier(deps),
    incidentmgmt: createIncidentmgmtNotifier(deps),
    alerting: createAlertingNotifier(deps),
    ticketing: createTicketingNotifier(deps),
    push: createPushNotifier(deps),
  };
}
