import { createServer, IncomingMessage, ServerResponse, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express } from 'express';
import type { TlsFiles } from '../config/tls-files.js';
import { HandshakeRate } from './handshake-rate.js';
import { listenersOfRoute, markListener } from './listener-routes.js';

/**
 * Why this module exists: Express 5 runs `Object.setPrototypeOf(req, app.request)` (and the same
 * for `res`) on every request. Changing an object's prototype gives it a new V8 hidden class, and
 * every property added afterwards (Nest, passport, our middlewares add a dozen) then builds fresh,
 * unshared hidden classes: dictionary lookups, megamorphic inline caches and garbage on every
 * request. It cost about half of the token endpoint's event-loop CPU (docs/design-decisions.md, "Performance of the token path").
 *
 * The servers built here create `req` and `res` with Express's own prototypes from the start, so
 * Express's swap changes nothing. The prototype chain is exactly the one Express would have set:
 * `app.request` → Express's request → `http.IncomingMessage.prototype` (`app.response` →
 * Express's response → `http.ServerResponse.prototype`), so behaviour is identical.
 */
type HttpClasses = { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse };

/**
 * The properties Express, Nest and our guards add to every request (and response) later, each
 * created at construction, in one order: whatever route a request takes and whichever of them it
 * sets, every request keeps one hidden class, and the property reads of the hot paths stay
 * monomorphic. `undefined` is what each reads as before it is set.
 */
const REQUEST_PROPERTIES = [
  'res',
  'next',
  'baseUrl',
  'originalUrl',
  '_parsedUrl',
  'params',
  'route',
  'id',
  'body',
  'user',
  'takesProofs',
  'dpop',
  'certificateThumbprint',
];
const RESPONSE_PROPERTIES = ['req', 'locals'];

// One pair of classes per Express application: the public and the admin listener share them,
// hence share their hidden classes too.
const classesOf = new WeakMap<Express, HttpClasses>();

/**
 * A constructor building `base` instances whose prototype is `prototype` itself. It is an ES5
 * constructor calling `base` on `this`, as node:http's own classes derive from each other
 * (IncomingMessage from Readable, ServerResponse from OutgoingMessage): V8 then gives every
 * instance one cached initial map. (`Reflect.construct(base, args, newTarget)` with a plain
 * function as `newTarget` takes V8's slow path on every call.)
 */
function constructorWithPrototype<T extends abstract new (...args: never[]) => object>(base: T, prototype: object, later: readonly string[]): T {
  const construct = base as unknown as (this: object, first: unknown, second: unknown) => void;
  // node:http constructs both classes with at most two arguments (socket; request, options).
  function WithPrototype(this: Record<string, unknown>, first: unknown, second: unknown): void {
    construct.call(this, first, second);
    for (const name of later) this[name] = undefined;
  }
  WithPrototype.prototype = prototype;
  return WithPrototype as unknown as T;
}

/** The request and response classes whose instances Express will not re-prototype. */
export function httpClassesOf(app: Express): HttpClasses {
  let classes = classesOf.get(app);
  if (!classes) {
    classes = {
      IncomingMessage: constructorWithPrototype(IncomingMessage, app.request, REQUEST_PROPERTIES),
      ServerResponse: constructorWithPrototype(ServerResponse, app.response, RESPONSE_PROPERTIES),
    };
    classesOf.set(app, classes);
  }
  return classes;
}

/**
 * An HTTP server for `app` (every listener of the application must be made here): `handler`
 * defaults to the application itself; a wrapper that ends in it (the admin listener's) may be given.
 */
export function createHttpServer(app: Express, handler: RequestListener = app): Server {
  return createServer(httpClassesOf(app), handler);
}

// The Express registration methods Nest calls for routes and middleware.
type Registration = 'use' | 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options' | 'all' | 'search';
type Register = (...args: unknown[]) => unknown;

/**
 * Nest's Express adapter, creating its HTTP server with createHttpServer, able to register
 * routes after the application's own, and holding two Express applications: `instance` for the
 * public listener and `adminInstance` for the admin listener. Every route and middleware goes to
 * the one(s) its path belongs to (listenersOfRoute), once, at start-up: the public listener's
 * application has no admin, metrics, documentation or console route at all, so no form of
 * request target can reach one there, and nothing is decided per request.
 */
export class ExpressServerAdapter extends ExpressAdapter {
  readonly adminInstance: Express = express();
  private readonly lateRoutes: Array<() => void> = [];

  /**
   * `tls`: the public listener serves HTTPS only, TLS 1.2 at least (docs/operations/tls.md).
   * `requestCertificates` (MTLS=true, docs/guides/mtls.md): its handshakes ask every client for a
   * certificate and never require one, nor verify it (the client authentication does that), and
   * new connections are limited to `handshakeRate` a second per source address (HandshakeRate).
   */
  constructor(
    private readonly tls?: TlsFiles,
    private readonly requestCertificates = false,
    private readonly handshakeRate?: number,
  ) {
    super();
    markListener(this.getInstance<Express>(), 'public');
    markListener(this.adminInstance, 'admin');
  }

  /**
   * Registers routes after Nest's (when the application initialises, just before its not-found
   * handler): Express tries routes in order, so every token request skips them, instead of
   * testing each one's path first.
   */
  afterApplicationRoutes(register: () => void): void {
    this.lateRoutes.push(register);
  }

  override setNotFoundHandler(...args: Parameters<ExpressAdapter['setNotFoundHandler']>): void {
    for (const register of this.lateRoutes.splice(0)) register();
    super.setNotFoundHandler(...args);
  }

  override use(...args: unknown[]): unknown {
    return this.register('use', args);
  }
  override get(...args: unknown[]): unknown {
    return this.register('get', args);
  }
  override post(...args: unknown[]): unknown {
    return this.register('post', args);
  }
  override put(...args: unknown[]): unknown {
    return this.register('put', args);
  }
  override patch(...args: unknown[]): unknown {
    return this.register('patch', args);
  }
  override delete(...args: unknown[]): unknown {
    return this.register('delete', args);
  }
  override head(...args: unknown[]): unknown {
    return this.register('head', args);
  }
  override options(...args: unknown[]): unknown {
    return this.register('options', args);
  }
  override all(...args: unknown[]): unknown {
    return this.register('all', args);
  }
  override search(...args: unknown[]): unknown {
    return this.register('search', args);
  }

  // Settings (trust proxy, etag, x-powered-by) hold for both listeners.
  override set(...args: unknown[]): unknown {
    (this.adminInstance.set as Register)(...args);
    return (this.getInstance<Express>().set as Register)(...args);
  }
  override enable(...args: unknown[]): unknown {
    (this.adminInstance.enable as Register)(...args);
    return (this.getInstance<Express>().enable as Register)(...args);
  }
  override disable(...args: unknown[]): unknown {
    (this.adminInstance.disable as Register)(...args);
    return (this.getInstance<Express>().disable as Register)(...args);
  }

  private register(method: Registration, args: unknown[]): unknown {
    const listeners = listenersOfRoute(args[0]);
    const publicApp = this.getInstance<Express>();
    if (listeners !== 'public') (this.adminInstance[method] as Register).apply(this.adminInstance, args);
    return listeners === 'admin' ? publicApp : (publicApp[method] as Register).apply(publicApp, args);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    // Options the server does not use keep Nest's own server (correct, without the gain).
    if (options.httpsOptions || options.return503OnClosing || options.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    this.httpServer = this.tls
      ? createHttpsServer(
          {
            cert: this.tls.cert,
            key: this.tls.key,
            minVersion: 'TLSv1.2',
            // docs/operations/tls.md#cipher-suites: TLS 1.2 with AEAD and forward secrecy only, in the server's order.
            ciphers: this.tls.ciphers,
            honorCipherOrder: true,
            ...(this.requestCertificates ? { requestCert: true, rejectUnauthorized: false } : {}),
            ...httpClassesOf(app),
          },
          app,
        )
      : createHttpServer(app);
    if (this.tls && this.requestCertificates && this.handshakeRate !== undefined) new HandshakeRate(this.handshakeRate).guard(this.httpServer);
  }
}
