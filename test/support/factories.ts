import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { ClientsService } from '../../src/clients/clients.service.js';
import type { ClientRegistration } from '../../src/clients/client-registration.js';

export type TestClient = { clientId: string; clientSecret: string };

/** The audit trail's actor for clients the tests set up (every creation is audited, whoever makes it). */
export const FACTORY_ACTOR = 'test:factory';

/** A registered client with a unique id (tests never share clients, so no cleanup is needed). */
export async function createClient(app: INestApplicationContext, overrides: Partial<ClientRegistration> = {}): Promise<TestClient> {
  const issued = await app.get(ClientsService).create(
    {
      clientId: `client-${randomBytes(6).toString('hex')}`,
      clientName: 'Test client',
      allowedScopes: 'uma_protection read write',
      ...overrides,
    },
    { actor: FACTORY_ACTOR },
  );
  return { clientId: issued.clientId, clientSecret: issued.clientSecret ?? '' };
}

export function basic(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
