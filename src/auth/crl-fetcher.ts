import { Inject, Injectable, Logger } from '@nestjs/common';
import { PemConverter } from '@peculiar/x509';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { CrlFetch } from '../certificates/udap-chain.js';
import { guardedGet, GuardedGetError, safeUri } from './guarded-get.js';

/** The largest CRL fetched: a trust community's CA lists its revoked members, not the web's. */
export const MAX_CRL_BYTES = 1024 * 1024;

/** A CRL that could not be fetched (the cause is logged, not told). */
export class CrlUnavailable extends Error {}

const PEM_CRL = /^\s*-----BEGIN X509 CRL-----/;

/**
 * Fetches the CRLs a UDAP certificate's cRLDistributionPoints name, for UdapChainVerifier
 * (certificates/udap-chain.ts, which reads, verifies and keeps them): http or https, with the
 * jwks_uri fetch's guards (guarded-get.ts: never a loopback, private or other special-purpose
 * address unless JWKS_URI_ALLOW_HTTP, 3 s, no redirects), at most 1 MiB, DER or PEM. A CRL is
 * signed by its issuer, so plain http is what CAs publish them on.
 */
@Injectable()
export class CrlFetcher {
  private readonly logger = new Logger('CrlFetcher');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** fetch, bound: what UdapChainVerifier takes as `fetchCrl`. */
  readonly fetchCrl: CrlFetch = (uri) => this.fetch(uri);

  /** The CRL at `uri` as DER; a CrlUnavailable when it cannot be had. */
  async fetch(uri: string): Promise<Uint8Array> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw this.unavailable(uri, 'the CRL distribution point is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw this.unavailable(uri, 'the CRL distribution point is not an http or https URL');
    const options = {
      guarded: !this.config.jwksUriAllowHttp,
      accept: 'application/pkix-crl, application/x-pkcs7-crl, */*;q=0.1',
      maxBytes: MAX_CRL_BYTES,
      target: 'the CRL distribution point',
      document: 'the CRL',
    };
    let response: { status: number; body: Buffer };
    try {
      response = await guardedGet(url, options);
    } catch (error) {
      if (error instanceof GuardedGetError) throw this.unavailable(uri, error.message);
      throw error;
    }
    if (response.status !== 200) throw this.unavailable(uri, `the CRL distribution point answered HTTP ${response.status} (redirects are not followed)`);
    return this.der(uri, response.body);
  }

  /** A PEM CRL (`-----BEGIN X509 CRL-----`) as its DER; anything else as it came (read as DER by the verifier). */
  private der(uri: string, body: Buffer): Uint8Array {
    const text = body.subarray(0, 64).toString('latin1');
    if (!PEM_CRL.test(text)) return new Uint8Array(body);
    try {
      const crl = PemConverter.decodeWithHeaders(body.toString('latin1')).find((block) => block.type === 'X509 CRL');
      if (crl) return new Uint8Array(crl.rawData);
    } catch {
      // told below
    }
    throw this.unavailable(uri, 'the CRL is PEM that cannot be read');
  }

  private unavailable(uri: string, cause: string): CrlUnavailable {
    this.logger.warn(`CRL ${safeUri(uri)} unavailable: ${cause}`);
    return new CrlUnavailable('the CRL could not be fetched');
  }
}
