import { Injectable, type PipeTransform } from '@nestjs/common';
import { isPrivateRegionId } from '#contracts';
import { notFound } from '../errors.js';

/** A path region id: anything but a private region's form (a public id too) is REGION_NOT_FOUND at once. */
@Injectable()
export class PrivateRegionIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (!isPrivateRegionId(value)) throw notFound.region();
    return value;
  }
}
