import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';

/**
 * What the server does around every request (secure headers, request id and log line, listener
 * separation, latency metrics), in order. `onRequest` returns false when it answered the request
 * itself: the hooks after it do not run, and their `onFinish` is not called.
 */
export type RequestHook = {
  onRequest?(request: Request, response: Response): boolean;
  /** When the response is finished; `startedAt` is `performance.now()` when the request came in. */
  onFinish?(request: Request, response: Response, startedAt: number): void;
};

/**
 * All hooks in one Express middleware with one 'finish' listener: on the token endpoint's hot
 * path, each middleware is a router step and each listener a closure and an event registration.
 */
export function useRequestHooks(app: NestExpressApplication, hooks: readonly RequestHook[]): void {
  app.use((request: Request, response: Response, next: NextFunction) => {
    const startedAt = performance.now();
    let passed = 0;
    while (passed < hooks.length && (hooks[passed].onRequest?.(request, response) ?? true)) passed += 1;
    response.once('finish', () => {
      for (let i = 0; i < passed; i += 1) hooks[i].onFinish?.(request, response, startedAt);
    });
    if (passed === hooks.length) next();
  });
}
