import { All, Controller, Delete, Get, Inject, Param, Post, Put, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OAuthExceptionFilter } from '../http/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { sendNoContent, unsupportedMethod } from '../uma/protection-responses.js';
import { readRegistrationBodySettled } from './registration-body.js';
import { RegistrationAbandoned } from './registration-error.js';
import { RegistrationLine } from './registration-line.js';
import { RegistrationService } from './registration.service.js';
import { UdapRegistrations } from './udap-registrations.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OAuthError } from '../oauth/oauth-error.js';

const COLLECTION_METHODS = 'POST';
const ITEM_METHODS = 'GET, PUT, DELETE';

/**
 * RFC 7591 registration at `/oauth2/register`, behind an initial access token, and RFC 7592
 * management at `/oauth2/register/{client_id}`, behind the client's registration access token
 * (docs/reference/registration-endpoint.md). Public listener only.
 */
@ApiTags('oauth2')
@ApiBearerAuth()
@Controller('oauth2/register')
@UseFilters(OAuthExceptionFilter)
export class RegistrationController {
  constructor(
    private readonly registrations: RegistrationService,
    private readonly line: RegistrationLine,
    private readonly udap: UdapRegistrations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** With UDAP on and DYNAMIC_CLIENT_REGISTRATION off, only UDAP registrations are answered here. */
  private requireDynamicRegistration(): void {
    if (!this.config.dynamicClientRegistration) throw new OAuthError('invalid_request', 'dynamic client registration is off on this server').withStatus(404);
  }

  @Post()
  @ApiOperation({ summary: 'Register a client (RFC 7591) with an initial access token: 201 with its credentials, shown once' })
  @ApiResponse({ status: 201, description: 'The registered metadata, client_secret (secret methods) and registration_access_token' })
  async register(@Req() request: Request, @Res() response: Response): Promise<void> {
    const address = request.ip ?? 'unknown';
    // The body is read first; its refusals keep their order (token, then body).
    const read = await readRegistrationBodySettled(request);
    // docs/reference/trust-communities.md#registration: a body with `udap` is a UDAP registration (with UDAP on); its certificate is the credential.
    if (this.udap.enabled && 'body' in read && read.body.udap !== undefined) {
      const udap = await this.line.run(() => this.udap.register(read.body, request.headers.authorization, address));
      sendNoStoreJson(response, udap.status, udap.body);
      return;
    }
    this.requireDynamicRegistration();
    // The initial access token (one indexed lookup) before anything else: the line's places, and
    // the slow hashes, are for authenticated registrations, so a flood of unknown tokens is 401 at
    // once, never 503, and never delays a valid one (docs/operations/security.md, "A registration flood").
    const iat = await this.registrations.authenticateIat(request.headers.authorization, address);
    // A registration which could not hash its secret now is answered 503 before any write.
    if ('body' in read) this.registrations.refuseIfHashesBusy(read.body);
    // One registration's share of the process at a time, however many connections a flood opens.
    const gone = () => request.socket.destroyed;
    const registered = await this.line.run(async () => {
      if (gone()) return undefined;
      if ('error' in read) throw read.error;
      try {
        return await this.registrations.register(iat, read.body, address, gone);
      } catch (error) {
        if (error instanceof RegistrationAbandoned) return undefined;
        throw error;
      }
    });
    if (!registered) return;
    sendNoStoreJson(response, 201, registered.body, { Location: registered.location });
  }

  @All()
  collectionOther(@Req() request: Request): never {
    throw unsupportedMethod(request.method, COLLECTION_METHODS);
  }

  @Get(':clientId')
  @ApiOperation({ summary: 'Read a registration (RFC 7592 §2.1) with its registration access token' })
  async read(@Req() request: Request, @Res() response: Response, @Param('clientId') clientId: string): Promise<void> {
    this.requireDynamicRegistration();
    // The registration access token before the line, as the initial access token above.
    const client = await this.registrations.authenticateClient(request.headers.authorization, clientId, request.ip ?? 'unknown');
    const body = await this.line.run(() => this.registrations.read(client));
    sendNoStoreJson(response, 200, body);
  }

  @Put(':clientId')
  @ApiOperation({ summary: 'Replace a registration (RFC 7592 §2.2): a new registration access token' })
  async update(@Req() request: Request, @Res() response: Response, @Param('clientId') clientId: string): Promise<void> {
    this.requireDynamicRegistration();
    const address = request.ip ?? 'unknown';
    const read = await readRegistrationBodySettled(request);
    const client = await this.registrations.authenticateClient(request.headers.authorization, clientId, address);
    const updated = await this.line.run(async () => {
      if ('error' in read) throw read.error;
      return this.registrations.update(client, read.body, address);
    });
    sendNoStoreJson(response, 200, updated);
  }

  @Delete(':clientId')
  @ApiOperation({ summary: "Delete a registration (RFC 7592 §2.3), as an administrator's remove: 204" })
  async remove(@Req() request: Request, @Res() response: Response, @Param('clientId') clientId: string): Promise<void> {
    this.requireDynamicRegistration();
    const address = request.ip ?? 'unknown';
    const client = await this.registrations.authenticateClient(request.headers.authorization, clientId, address);
    await this.line.run(() => this.registrations.remove(client, address));
    sendNoContent(response);
  }

  @All(':clientId')
  itemOther(@Req() request: Request): never {
    throw unsupportedMethod(request.method, ITEM_METHODS);
  }
}
