import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/auth.guard.js';
import { OPENAPI_DOCUMENT, type OpenApiDocument } from './openapi.document.js';

/** GET /api/openapi.json: the API's OpenAPI 3.1 document, without an API key. */
@Controller()
export class OpenApiController {
  @Get('api/openapi.json')
  @Public()
  @Header('Cache-Control', 'no-cache')
  document(): OpenApiDocument {
    return OPENAPI_DOCUMENT;
  }
}
