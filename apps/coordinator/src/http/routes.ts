import { HttpStatus, RequestMethod, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/internal';
import { declaredAccess, type Access } from '../auth/auth.guard.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

const METHODS: Partial<Record<RequestMethod, HttpMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/** One HTTP route as its controller declares it. */
export interface DeclaredRoute {
  method: HttpMethod;
  /** OpenAPI template: `/api/monitors/{id}`. */
  path: string;
  controller: Type;
  /** The handler function (the key of its method decorators' metadata). */
  handler: object;
  handlerName: string;
  /** `public`, the permission it needs, `session`/`admin` (dashboard users only), or undefined (the guard refuses such a route). */
  access: Access | undefined;
  /** The success status: `@HttpCode`, else Nest's default (201 for POST, 200 otherwise). */
  status: number;
  /** The class of its `@Query()` parameter, when it has one typed with a DTO. */
  query: Type | undefined;
}

const NOT_DTOS: readonly unknown[] = [String, Number, Boolean, Object, Array];

/** A handler's `@Query()` parameter: whether it has one, and the DTO class it is typed with. */
export function queryOf(controller: Type, handlerName: string): { declared: boolean; dto: Type | undefined } {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handlerName) ?? {}) as Record<
    string,
    { index: number }
  >;
  const key = Object.keys(args).find((name) => name.startsWith(`${RouteParamtypes.QUERY}:`));
  if (key === undefined) return { declared: false, dto: undefined };
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, handlerName) ??
    []) as unknown[];
  const type = types[args[key]!.index];
  return { declared: true, dto: typeof type === 'function' && !NOT_DTOS.includes(type) ? (type as Type) : undefined };
}

const segments = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((part): part is string => typeof part === 'string');

function joinPath(prefix: string, path: string): string {
  const parts = [prefix, path].flatMap((part) => part.split('/')).filter((part) => part !== '');
  return '/' + parts.map((part) => (part.startsWith(':') ? `{${part.slice(1)}}` : part)).join('/');
}

/** The HTTP routes of these controllers, read from Nest's route metadata (message handlers skipped). */
export function declaredRoutes(controllers: Iterable<Type>): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const controller of controllers) {
    const prefixes = segments(Reflect.getMetadata(PATH_METADATA, controller));
    const proto = controller.prototype as Record<string, unknown>;
    for (const handlerName of Object.getOwnPropertyNames(proto)) {
      const handler = proto[handlerName];
      if (handlerName === 'constructor' || typeof handler !== 'function') continue;
      const method = METHODS[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const paths = segments(Reflect.getMetadata(PATH_METADATA, handler));
      if (!method || paths.length === 0) continue;
      const code = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
      const status = code ?? (method === 'post' ? HttpStatus.CREATED : HttpStatus.OK);
      const access = declaredAccess(handler, controller);
      for (const prefix of prefixes.length > 0 ? prefixes : ['']) {
        for (const path of paths) {
          const query = queryOf(controller, handlerName).dto;
          routes.push({
            method,
            path: joinPath(prefix, path),
            controller,
            handler,
            handlerName,
            access,
            status,
            query,
          });
        }
      }
    }
  }
  return routes;
}
