import { Module } from '@nestjs/common';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { EventsController } from './events.controller.js';
import { StatusFeedController } from './status-feed.controller.js';
import { StatusFeed } from './status-feed.js';

/** Live status for dashboards: the feed the transition stage publishes to, and its stream route. */
@Module({
  imports: [MonitorsModule],
  controllers: [EventsController, StatusFeedController],
  providers: [StatusFeed],
  exports: [StatusFeed],
})
export class LiveModule {}
