import { booleanString, Field, objectIdString, text } from '#validation';
import { PageQuery } from '../common/pagination.js';

export const COMMENT_MAX = 5000;
export const DEFAULT_INCIDENTS_PER_PAGE = 20;

export class ListIncidentsQuery extends PageQuery {
  @Field(objectIdString, { optional: true }) monitor_id?: string;
  @Field(booleanString, { optional: true }) resolved?: 'true' | 'false';
}

export class IncidentCommentDto {
  @Field(text({ max: COMMENT_MAX, multiline: true })) comment!: string;
}
