import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CertificateError, ClientCertificate } from '../certificates/client-certificate.js';
import { readForwardedCertificate } from '../certificates/forwarded-certificate.js';
import { keyOutOfBounds } from '../certificates/key-bounds.js';

type TrustFunction = (address: string, hop: number) => boolean;

const MAX_FORWARDED = 1_000;

/**
 * The client certificate of a request (docs/guides/mtls.md#where-the-certificate-comes-from):
 * under native TLS the one of the connection's initial handshake, read once per connection; behind
 * a proxy the one in MTLS_CLIENT_CERT_HEADER, believed only when the socket's own peer is a
 * proxy TRUST_PROXY names, parsed once per distinct header value. Asked only by the checks that need
 * it (a certificate-authenticated or certificate-bound client, a bound PAT): no other request pays
 * for it. An unparsable or untrusted header counts as no certificate, with a `warn` line that never
 * holds the value.
 */
@Injectable()
export class ClientCertificates {
  private readonly logger = new Logger('ClientCertificates');
  private readonly ofSocket = new WeakMap<Socket, ClientCertificate | null>();
  private readonly forwarded = new Map<string, ClientCertificate | null>();
  private readonly header?: string;
  readonly enabled: boolean;

  /** Set with the header: TRUST_PROXY as a list of proxies (a hop count is refused at start). */
  private readonly namedProxies: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.enabled = config.mtls !== undefined;
    this.header = config.mtls?.certificateHeader;
    this.namedProxies = Array.isArray(config.trustProxy);
  }

  of(request: Request): ClientCertificate | undefined {
    if (!this.enabled) return undefined;
    return (this.header !== undefined ? this.fromHeader(request, this.header) : this.fromConnection(request.socket)) ?? undefined;
  }

  private fromConnection(socket: Socket): ClientCertificate | null {
    let certificate = this.ofSocket.get(socket);
    if (certificate === undefined) {
      const peer = (socket as TLSSocket).getPeerX509Certificate?.();
      try {
        certificate = peer ? this.bounded(ClientCertificate.fromDer(Buffer.from(peer.raw))) : null;
      } catch {
        this.logger.warn('the client certificate of a connection cannot be read: the connection has none');
        certificate = null;
      }
      this.ofSocket.set(socket, certificate);
    }
    return certificate;
  }

  /**
   * A certificate whose key costs more than the bounds (keyOutOfBounds) is no certificate: refused
   * before any of its signatures is verified here (the chain, docs/guides/mtls.md#bounded-handshakes).
   */
  private bounded(certificate: ClientCertificate): ClientCertificate | null {
    const reason = keyOutOfBounds(certificate.node);
    if (reason === undefined) return certificate;
    this.logger.warn(`a client certificate was ignored: ${reason}`);
    return null;
  }

  private fromHeader(request: Request, name: string): ClientCertificate | null {
    const value = request.headers[name];
    if (value === undefined) return null;
    const trust = request.app.get('trust proxy fn') as TrustFunction | undefined;
    const peer = request.socket.remoteAddress ?? '';
    // The connection's own peer must be a named proxy, whatever X-Forwarded-For says: the list form
    // of Express's trust function looks at the address alone (a hop count would trust any peer).
    if (!this.namedProxies || !trust?.(peer, 0)) {
      this.logger.warn(`a client certificate header from ${peer}, which TRUST_PROXY does not trust, was ignored`);
      return null;
    }
    if (Array.isArray(value)) {
      this.logger.warn('several client certificate headers were sent: none was used');
      return null;
    }
    const known = this.forwarded.get(value);
    if (known !== undefined) return known;
    let certificate: ClientCertificate | null;
    try {
      const read = readForwardedCertificate(value);
      certificate = read ? this.bounded(read) : null;
    } catch (error) {
      this.logger.warn(`the forwarded client certificate was ignored: ${error instanceof CertificateError ? error.message : 'it cannot be read'}`);
      return null;
    }
    if (this.forwarded.size >= MAX_FORWARDED) this.forwarded.delete(this.forwarded.keys().next().value!);
    this.forwarded.set(value, certificate);
    return certificate;
  }
}
