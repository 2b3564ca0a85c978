import type { INestApplication } from '@nestjs/common';
import { ExpressServerAdapter } from './express-server.js';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

/** OpenAPI 3 description of both listeners' endpoints. */
export function buildApiDocument(app: INestApplication): OpenAPIObject {
  const options = new DocumentBuilder()
    .setTitle('Consent-ticket authorization server')
    .setDescription(
      'OAuth 2.0 client credentials grant with RFC 9068 JWT access tokens (public listener, PORT), ' +
        'and the JSON:API administrative interface with the JSON Patch extension (admin listener, ADMIN_PORT). ' +
        'Paths tagged `admin` and `operations` answer only on ADMIN_PORT; `health` answers on both.',
    )
    .setVersion('1.0')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'client_secret_basic: client_id and client_secret' }, 'client_secret_basic')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization', description: 'the admin token, alone or after `Bearer `' }, 'admin_token')
    .build();
  return SwaggerModule.createDocument(app, options);
}

/**
 * Swagger UI at /docs, the document at /docs-json and /docs-yaml: admin listener only. Its routes
 * come after the API's when the server's adapter allows it (the token path then never tests them).
 */
export function setUpApiDocs(app: INestApplication): void {
  const setUp = () => SwaggerModule.setup('docs', app, () => buildApiDocument(app));
  const adapter = app.getHttpAdapter();
  if (adapter instanceof ExpressServerAdapter) adapter.afterApplicationRoutes(setUp);
  else setUp();
}
