import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { createHttpServer } from './express-server.js';

type Seen = { createdWith: object; handledWith: object; responseCreatedWith: object; responseHandledWith: object };

/** Serves one GET on `server` and reports req/res prototypes as created and as Express left them. */
async function prototypesThrough(app: Express, server: Server): Promise<Seen> {
  let created: { request: object; response: object } | undefined;
  // Runs before Express's own listener: the prototypes exactly as the server created them.
  server.prependListener('request', (request, response) => {
    created = { request: Object.getPrototypeOf(request) as object, response: Object.getPrototypeOf(response) as object };
  });
  let seen: Seen | undefined;
  app.get('/probe', (request, response) => {
    seen = {
      createdWith: created!.request,
      handledWith: Object.getPrototypeOf(request) as object,
      responseCreatedWith: created!.response,
      responseHandledWith: Object.getPrototypeOf(response) as object,
    };
    response.json({ ok: true });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`);
    expect(await response.json()).toEqual({ ok: true });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return seen!;
}

describe('createHttpServer', () => {
  it('creates requests and responses with the prototypes Express gives them, so Express swaps nothing', async () => {
    const app = express();
    const seen = await prototypesThrough(app, createHttpServer(app));
    expect(seen.createdWith).toBe(app.request);
    expect(seen.handledWith).toBe(app.request);
    expect(seen.responseCreatedWith).toBe(app.response);
    expect(seen.responseHandledWith).toBe(app.response);
  });

  it('keeps the whole prototype chain of Express: its request and response, then node:http', () => {
    const app = express();
    const request = Object.getPrototypeOf(app.request) as object;
    const response = Object.getPrototypeOf(app.response) as object;
    expect(request).toBe(express.request);
    expect(Object.getPrototypeOf(request)).toBe(IncomingMessage.prototype);
    expect(response).toBe(express.response);
    expect(Object.getPrototypeOf(response)).toBe(ServerResponse.prototype);
  });

  it('gives a wrapping handler the same classes, for a second listener on the same application', async () => {
    const app = express();
    const seen = await prototypesThrough(
      app,
      createHttpServer(app, (request, response) => {
        app(request, response);
      }),
    );
    expect(seen.createdWith).toBe(app.request);
    expect(seen.handledWith).toBe(app.request);
  });

  it('differs from a plain node:http server, whose requests Express re-prototypes', async () => {
    const app = express();
    const seen = await prototypesThrough(app, createServer(app));
    expect(seen.createdWith).toBe(IncomingMessage.prototype);
    expect(seen.handledWith).toBe(app.request);
  });
});
