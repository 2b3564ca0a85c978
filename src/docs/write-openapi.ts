import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module.js';
import { loadConfig } from '../config/load-config.js';
import { buildApiDocument } from '../http/api-docs.js';

/**
 * Writes the OpenAPI document (`npm run openapi [-- <file>]`, default openapi.json) of every
 * endpoint the server can serve: the optional ones (dynamic registration, UDAP discovery) are
 * switched on. The application is built in preview mode: modules are scanned, nothing is
 * instantiated, so no database, certificate or key is needed.
 */
async function main(file = 'openapi.json'): Promise<void> {
  const config = { ...loadConfig({}), dynamicClientRegistration: true, udap: true, databaseUrl: 'postgres://unused@127.0.0.1:1/unused' };
  const app = await NestFactory.create(AppModule.forRoot(config), { preview: true, logger: false });
  const document = buildApiDocument(app);
  await writeFile(resolve(file), `${JSON.stringify(document, null, 2)}\n`);
  await app.close();
  process.stdout.write(`OpenAPI document written to ${resolve(file)}\n`);
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`cannot write the OpenAPI document: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
