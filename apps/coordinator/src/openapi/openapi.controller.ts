import { Controller, Get, Header, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Public } from '../auth/auth.guard.js';
import { declaredRoutes } from '../http/routes.js';
import { ApiOperation } from './api-operation.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.document.js';

/**
 * GET /api/openapi.json: the API's OpenAPI 3.1 document, without an API key. Built once at start
 * from the routes of every controller, so a route the document cannot describe stops the start.
 */
@Controller()
export class OpenApiController implements OnModuleInit {
  private built: OpenApiDocument | undefined;

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const controllers = this.discovery
      .getControllers()
      .flatMap((wrapper) => (wrapper.metatype ? [wrapper.metatype] : []));
    this.built = buildOpenApiDocument(declaredRoutes(controllers as Type[]));
  }

  @Get('api/openapi.json')
  @Public()
  @Header('Cache-Control', 'no-cache')
  @ApiOperation({
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'This OpenAPI document',
    description: 'Served without an API key.',
    success: { description: 'The OpenAPI 3.1 document.', schema: 'OpenApiDocument' },
  })
  document(): OpenApiDocument {
    if (!this.built) throw new Error('the OpenAPI document is built when the module starts');
    return this.built;
  }
}
