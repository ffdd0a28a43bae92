import { Module } from '@nestjs/common';
import { CoordinatorConfig } from '../config.js';
import { NotifyModule } from '../notify/notify.module.js';
import { TransitionRecorder, transitionRecorderFor } from './transition-recorder.js';
import { TransitionWriter } from './transition.writer.js';

/** Monitors' status changes: written with their incident and outbox rows, held through an outage. */
@Module({
  imports: [NotifyModule],
  providers: [
    TransitionWriter,
    { provide: TransitionRecorder, inject: [TransitionWriter, CoordinatorConfig], useFactory: transitionRecorderFor },
  ],
  exports: [TransitionWriter, TransitionRecorder],
})
export class TransitionsModule {}
