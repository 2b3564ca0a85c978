import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import type { ExpressServerAdapter } from '../../src/http/express-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Trace = { createdWith: object; finishedWith: object; responseCreatedWith: object; responseFinishedWith: object };

// Express 5 re-prototypes every req and res unless they already have its prototypes, and that
// swap costs the token endpoint about half its CPU (src/http/express-server.ts): both listeners
// must create them with Express's prototypes.
function tracePrototypes(server: Server): Trace[] {
  const traces: Trace[] = [];
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const createdWith = Object.getPrototypeOf(request) as object;
    const responseCreatedWith = Object.getPrototypeOf(response) as object;
    response.once('finish', () => {
      traces.push({
        createdWith,
        finishedWith: Object.getPrototypeOf(request) as object,
        responseCreatedWith,
        responseFinishedWith: Object.getPrototypeOf(response) as object,
      });
    });
  });
  return traces;
}

describe('request and response prototypes', () => {
  let server: TestApp;
  let express: Express;

  beforeAll(async () => {
    server = await startTestApp();
    express = server.app.getHttpAdapter().getInstance();
  });

  afterAll(() => server.close());

  it('keeps Express prototypes on the public listener from creation to the end of a response', async () => {
    const traces = tracePrototypes(server.app.getHttpServer());
    expect((await request(server.url).get('/oauth2/jwks')).status).toBe(200);
    expect(traces).toEqual([
      { createdWith: express.request, finishedWith: express.request, responseCreatedWith: express.response, responseFinishedWith: express.response },
    ]);
  });

  it('keeps Express prototypes on the admin listener from creation to the end of a response', async () => {
    // The admin listener has an Express application of its own (src/http/listener-routes.ts).
    const admin = (server.app.getHttpAdapter() as ExpressServerAdapter).adminInstance;
    const traces = tracePrototypes(server.adminServer);
    expect((await request(server.adminUrl).get('/health/live')).status).toBe(200);
    expect(traces).toEqual([
      { createdWith: admin.request, finishedWith: admin.request, responseCreatedWith: admin.response, responseFinishedWith: admin.response },
    ]);
  });
});
