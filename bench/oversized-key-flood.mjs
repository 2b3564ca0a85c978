// The `key-flood` case's attacker (bench/README.md): token requests for the bench client with a
// wrong secret, each carrying a DPoP proof whose `jwk` is an RSA key that would be costly to
// verify with (a 16384-bit modulus, or a 2048-bit modulus with a 3072-bit public exponent, in
// turn) and whose signature is random bytes, over FLOOD_CONNECTIONS connections, until SIGTERM;
// then one JSON line with the status codes and the rate. The keys are random bytes, not real
// keys: no signature is ever valid, and a real 16384-bit key takes minutes to generate.
import { randomBytes, randomUUID } from 'node:crypto';
import { flood } from './flood.mjs';

const url = process.env.FLOOD_URL;
const connections = Number(process.env.FLOOD_CONNECTIONS ?? 1);
const clientId = process.env.FLOOD_CLIENT_ID ?? 'bench-client';
const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** `bits` random bits with the top one set, base64url: a modulus or exponent of exactly that size. */
function number(bits) {
  const bytes = randomBytes(bits / 8);
  bytes[0] |= 0x80;
  return bytes.toString('base64url');
}

let sent = 0;
function proof() {
  sent += 1;
  const jwk = sent % 2 === 0 ? { kty: 'RSA', n: number(16384), e: 'AQAB' } : { kty: 'RSA', n: number(2048), e: number(3072) };
  const payload = { htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000), jti: randomUUID() };
  return `${part({ typ: 'dpop+jwt', alg: 'RS256', jwk })}.${part(payload)}.${randomBytes(jwk.n.length > 400 ? 2048 : 256).toString('base64url')}`;
}

await flood({
  url,
  connections,
  nextRequest: () => {
    const headers = {
      Authorization: `Basic ${Buffer.from(`${clientId}:wrong-secret`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      DPoP: proof(),
    };
    return { headers, body: 'grant_type=client_credentials&scope=read' };
  },
});
