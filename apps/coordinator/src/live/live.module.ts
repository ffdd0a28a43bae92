import { Module } from '@nestjs/common';
import { EventsController } from './events.controller.js';
import { StatusFeedController } from './status-feed.controller.js';
import { StatusFeed } from './status-feed.js';

/** Live status for dashboards: the feed the transition stage publishes to, and its stream route. */
@Module({
  controllers: [EventsController, StatusFeedController],
  providers: [StatusFeed],
  exports: [StatusFeed],
})
export class LiveModule {}
