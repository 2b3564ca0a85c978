import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ClientsModule } from '../clients/clients.module.js';
import { AuthThrottle } from './auth-throttle.js';
import { ClientAuthenticator } from './client-authenticator.js';
import { ClientAssertionAuthenticator } from './client-assertion-authenticator.js';
import { ClientKeys } from './client-keys.js';
import { DpopNonces } from './dpop-nonces.js';
import { DpopProofs } from './dpop-proofs.js';
import { JwksUriFetcher } from './jwks-uri-fetcher.js';
import { ReplayStore } from './replay-store.js';
import { SlowHashGate } from './slow-hash-gate.js';
import { CertificateAuthenticator } from './certificate-authenticator.js';
import { ClientCertificates } from './client-certificates.js';
import { CrlFetcher } from './crl-fetcher.js';
import { UdapCertificates } from './udap-certificates.js';
import { UdapClientAuthenticator } from './udap-client-authenticator.js';
import { ClientAuthGuard, DirectClientAuthGuard } from './guards/client-auth.guard.js';
import { DpopProofGuard } from './guards/dpop-proof.guard.js';
import { ClientBasicStrategy } from './strategies/client-basic.strategy.js';

const AUTH_PROVIDERS = [
  ClientAuthenticator,
  AuthThrottle,
  ClientBasicStrategy,
  ClientAuthGuard,
  DirectClientAuthGuard,
  DpopProofGuard,
  ClientAssertionAuthenticator,
  ClientKeys,
  JwksUriFetcher,
  ReplayStore,
  DpopNonces,
  DpopProofs,
  SlowHashGate,
  ClientCertificates,
  CertificateAuthenticator,
  CrlFetcher,
  UdapCertificates,
  UdapClientAuthenticator,
];

/** Client authentication (secrets, assertions, DPoP proofs) and its brute-force throttle. */
@Module({
  imports: [PassportModule, ClientsModule],
  providers: AUTH_PROVIDERS,
  exports: AUTH_PROVIDERS,
})
export class AuthModule {}
