import { Injectable, type PipeTransform } from '@nestjs/common';
import { isObjectId } from '#runtime';
import { notFound } from '../errors.js';

/**
 * Path ids: anything but 24 lowercase hex characters gets the resource's 404 at once,
 * byte for byte the one an unknown id gets, without touching the database.
 */
function objectIdPipe(kind: keyof typeof notFound): new () => PipeTransform<unknown, string> {
  @Injectable()
  class ObjectIdPipe implements PipeTransform<unknown, string> {
    transform(value: unknown): string {
      if (!isObjectId(value)) throw notFound[kind]();
      return value;
    }
  }
  return ObjectIdPipe;
}

export const MonitorIdPipe = objectIdPipe('monitor');
export const ContactIdPipe = objectIdPipe('contact');
export const IncidentIdPipe = objectIdPipe('incident');
export const StatusPageIdPipe = objectIdPipe('statusPage');
export const UserIdPipe = objectIdPipe('user');
export const ApiKeyIdPipe = objectIdPipe('apiKey');
export const MaintenanceWindowIdPipe = objectIdPipe('maintenanceWindow');
