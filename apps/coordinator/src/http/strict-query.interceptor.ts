import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { validationError } from '../errors.js';
import { queryOf } from './routes.js';

const declared = new WeakMap<object, boolean>();

/** Whether the handler takes a `@Query()` parameter (its DTO then judges the query string). */
function declaresQuery(context: ExecutionContext): boolean {
  const handler = context.getHandler();
  let result = declared.get(handler);
  if (result === undefined) {
    result = queryOf(context.getClass<Type>(), handler.name).declared;
    declared.set(handler, result);
  }
  return result;
}

/**
 * Query parameters are validated everywhere (docs/decisions/0002-wire-conventions.md): a route
 * without a query DTO accepts none, so `GET /api/account?x=1` is 422 like an unknown parameter on
 * a list.
 */
@Injectable()
export class StrictQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
    const keys = query ? Object.keys(query) : [];
    if (keys.length > 0 && !declaresQuery(context)) {
      throw validationError(keys.map((field) => ({ field, message: 'is not a known field' })));
    }
    return next.handle();
  }
}
