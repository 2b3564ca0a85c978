import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { add, freshIds, getAdmin, patchAdmin, ref, rowCounts } from '../support/admin.js';
import { browserSuite, openScreen, openTab, PHONE, screenshot, signIn } from '../support/browser.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import {
  bodyOf,
  accessTokenClaims,
  type JsonApiDocument,
  type JsonApiResource,
  type OAuthErrorBody,
  type PatchResults,
  type TokenBody,
} from '../support/bodies.js';

/**
 * The administrator's console (docs/guides/console.md) in a real Chromium, against the real server on the
 * test database. Controls are found by role and accessible name, as an administrator (or a
 * screen reader) finds them.
 */
// docs/guides/console.md: no request leaves the admin listener, and the admin token is never in a URL.
const suite = browserSuite();

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

function tokenRequest(clientId: string, secret: string, scope: string) {
  return request(suite.server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(clientId, secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
}

/** A client with a known secret, a definition and its scope, written through the admin interface. */
async function world(scopes = ['read']) {
  const clientId = unique('glucose-app');
  const definition = unique('blood-glucose-level');
  const secret = `secret-${randomBytes(12).toString('hex')}`;
  const response = await patchAdmin(suite.server, [
    add('uma-client', {
      lid: 'client',
      attributes: {
        clientId,
        clientName: 'App',
        allowedScopes: `${scopes.map((scope) => `${definition}:${scope}`).join(' ')} uma_protection`,
        clientSecret: secret,
      },
    }),
    add('resource-definition', { lid: 'definition', attributes: { name: definition, description: 'Blood glucose' } }),
    ...scopes.map((name) =>
      add('scope', { attributes: { name }, relationships: { resourceDefinition: { data: { type: 'resource-definition', lid: 'definition' } } } }),
    ),
  ]).expect(200);
  return { clientId, definition, secret, clientRecordId: bodyOf<PatchResults>(response)[0].data!.id };
}

/** Picks a record in a searchable picker (a combobox) by typing its name and clicking the server's match. */
async function pick(page: Page, label: string, name: string) {
  const box = page.getByRole('combobox', { name: label, exact: true });
  await box.fill(name);
  await page
    .getByRole('listbox', { name: `${label} suggestions` })
    .getByRole('option', { name, exact: true })
    .click();
  await expectPage(box).toHaveValue(name);
}

async function fillTicketForm(
  page: Page,
  values: { clientId: string; definition: string; scopes: string[]; purpose: string; ticketId: string; requestedResourceId: string; seconds: string },
) {
  await pick(page, 'Client', values.clientId);
  await pick(page, 'Resource definition', values.definition);
  const scopes = page.getByRole('group', { name: 'Scopes' });
  for (const scope of values.scopes) await scopes.getByLabel(scope).check();
  await page.getByLabel('Purpose text').fill(values.purpose);
  await page.getByLabel('Ticket ID').fill(values.ticketId);
  await page.getByLabel('Ticket name').fill(`Ticket ${values.ticketId}`);
  await page.getByLabel('Requested resource ID').fill(values.requestedResourceId);
  await page.getByLabel('Maximum duration').fill(values.seconds);
}

describe('the console', () => {
  it('signs in with the admin token and keeps it in sessionStorage only: never in a URL, a cookie or localStorage', async () => {
    const { context, page, requests } = await openTab(suite.browser);
    await page.goto(`${suite.server.adminUrl}/console`);
    await screenshot(page, 'sign-in');
    await signIn(page, suite.server.adminUrl, suite.server.adminToken);
    for (const name of ['Resource definitions', 'Data sources', 'Clients', 'Consent tickets', 'Explain', 'Audit trail', 'Authorization server']) {
      await openScreen(page, name);
      expect(page.url()).not.toContain(suite.server.adminToken);
    }
    expect(await page.evaluate('sessionStorage.getItem("adminToken")')).toBe(suite.server.adminToken);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await context.cookies()).toEqual([]);
    // Every request stayed on the admin listener's origin, and none carried the token in its URL.
    expect(requests.length).toBeGreaterThan(10);
    for (const sent of requests) {
      expect(new URL(sent.url()).origin).toBe(suite.server.adminUrl);
      expect(sent.url()).not.toContain(suite.server.adminToken);
      expect(sent.url()).not.toContain(encodeURIComponent(suite.server.adminToken));
    }
    await context.close();
  });

  it('refuses a wrong admin token plainly and keeps nothing', async () => {
    const { context, page } = await openTab(suite.browser);
    await page.goto(`${suite.server.adminUrl}/console`);
    await page.getByLabel('Admin token').fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectPage(page.getByRole('alert')).toContainText('That admin token is wrong: check it and try again.');
    await expectPage(page.getByLabel('Admin token')).toHaveAttribute('aria-invalid', 'true');
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await context.close();
  });

  it('signs out: the token is forgotten and the sign-in comes back, also after a reload', async () => {
    const { context, page } = await suite.signedInTab();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectPage(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expectPage(page.getByText('You are signed out')).toBeVisible();
    expect(await page.evaluate('sessionStorage.getItem("adminToken")')).toBeNull();
    await page.reload();
    await expectPage(page.getByLabel('Admin token')).toBeVisible();
    await context.close();
  });

  it('brings the sign-in back when the server answers 401 to a call', async () => {
    const { context, page } = await suite.signedInTab();
    // The token the tab holds stops being the server's (as after a rotation of the admin token).
    await page.evaluate('sessionStorage.setItem("adminToken", "a-token-the-server-no-longer-accepts")');
    await page.reload();
    await expectPage(page.getByText('The server refused the admin token: sign in again.')).toBeVisible();
    await expectPage(page.getByLabel('Admin token')).toBeVisible();
    expect(await page.evaluate('sessionStorage.getItem("adminToken")')).toBeNull();
    await context.close();
  });

  it('shows the issuer, the endpoints and the signing keys, and rotates the key', async () => {
    const { context, page } = await suite.signedInTab();
    await expectPage(page.getByText(suite.server.url, { exact: true })).toBeVisible();
    await expectPage(page.getByText(`${suite.server.url}/oauth2/token`)).toBeVisible();
    const keys = page.getByRole('table', { name: /Keys published/ }).getByRole('row');
    const before = await keys.count();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await expectPage(page.getByRole('status')).toContainText('A new signing key');
    await expectPage(keys).toHaveCount(before + 1);
    await context.close();
  });

  it('adds a resource definition and a scope, renames both and removes them', async () => {
    const { context, page } = await suite.signedInTab('Resource definitions');
    const name = unique('heart-rate');
    await page.getByLabel('Definition name').fill(name);
    await page.getByLabel('Description').fill('Heart rate measurements');
    await page.getByRole('button', { name: 'Add definition' }).click();
    await expectPage(page.getByRole('rowheader', { name })).toBeVisible();

    await page.getByLabel('Resource definition', { exact: true }).selectOption({ label: name });
    await page.getByLabel('Scope name').fill('read');
    await page.getByRole('button', { name: 'Add scope' }).click();
    await expectPage(page.getByRole('button', { name: `Remove scope read of ${name}` })).toBeVisible();

    await page.getByLabel('Scope to rename').selectOption({ label: `${name}: read` });
    await page.getByLabel('New name of the scope').fill('observe');
    await page.getByRole('button', { name: 'Rename scope' }).click();
    await expectPage(page.getByRole('button', { name: `Remove scope observe of ${name}` })).toBeVisible();
    await page.getByLabel('Definition to rename').selectOption({ label: name });
    await page.getByLabel('New name of the definition').fill(`${name}-renamed`);
    await page.getByRole('button', { name: 'Rename definition' }).click();
    await expectPage(page.getByRole('rowheader', { name: `${name}-renamed` })).toBeVisible();

    // A definition with a scope cannot go first: the server's refusal is shown, nothing changes.
    await page.getByRole('button', { name: `Remove definition ${name}-renamed` }).click();
    await expectPage(page.getByRole('alert')).toContainText('still referenced');
    await page.getByRole('button', { name: `Remove scope observe of ${name}-renamed` }).click();
    await expectPage(page.getByRole('button', { name: `Remove scope observe of ${name}-renamed` })).toHaveCount(0);
    await page.getByRole('button', { name: `Remove definition ${name}-renamed` }).click();
    await expectPage(page.getByRole('rowheader', { name: `${name}-renamed` })).toHaveCount(0);
    const body = bodyOf<JsonApiDocument<JsonApiResource[]>>(await getAdmin(suite.server, '/admin/resource-definition?page[size]=100').expect(200));
    expect(body.data.map((record) => record.attributes.name)).not.toContain(`${name}-renamed`);
    await context.close();
  });

  it('enrols a client and shows its secret once, with a copy button; that secret gets a token', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    const clientId = unique('reader');
    await page.getByLabel('Client ID').fill(clientId);
    await page.getByLabel('Client name').fill('Glucose reader');
    await page.getByLabel('Allowed scopes').fill('read uma_protection');
    await page.getByRole('button', { name: 'Enrol client' }).click();
    const secret = await page.getByLabel('Client secret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.adminUrl });
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await expectPage(page.getByText('Copied to the clipboard.')).toBeVisible();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await expectPage(page.getByRole('rowheader', { name: clientId })).toBeVisible();
    await tokenRequest(clientId, secret, 'read').expect(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await expectPage(page.getByLabel('Client secret')).toHaveCount(0);
    // Shown once: reading the clients again never shows it.
    await page.reload();
    await expectPage(page.getByRole('rowheader', { name: clientId })).toBeVisible();
    expect(await page.content()).not.toContain(secret);
    await context.close();
  });

  it('enrols a private_key_jwt client with its JWKS and DPoP binding: no secret is shown, a signed assertion gets a token only with a DPoP proof', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'console-key', alg: 'ES256', use: 'sig' };
    const { context, page } = await suite.signedInTab('Clients');
    const clientId = unique('key-client');
    await page.getByLabel('Client ID').fill(clientId);
    await page.getByLabel('Client name').fill('Key client');
    await page.getByLabel('Authentication method').selectOption('private_key_jwt');
    await page.getByLabel('JWKS', { exact: true }).fill(JSON.stringify({ keys: [jwk] }));
    await page.getByLabel('Allowed scopes').fill('read');
    await page.getByLabel('DPoP-bound access tokens').check();
    await page.getByRole('button', { name: 'Enrol client' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} enrolled.`);
    await expectPage(page.getByLabel('Client secret')).toHaveCount(0);
    await expectPage(page.getByRole('button', { name: `Rotate secret of ${clientId}` })).toHaveCount(0);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: clientId }) });
    await expectPage(row).toContainText('private_key_jwt, DPoP-bound tokens');

    const assertion = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'console-key' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(suite.server.url)
        .setIssuedAt()
        .setExpirationTime('2m')
        .setJti(randomBytes(16).toString('hex'))
        .sign(privateKey);
    const body = async () => ({
      grant_type: 'client_credentials',
      scope: 'read',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(),
    });
    const unbound = await request(suite.server.url)
      .post('/oauth2/token')
      .type('form')
      .send(await body())
      .expect(400);
    expect(bodyOf<OAuthErrorBody>(unbound).error).toBe('invalid_dpop_proof');
    const proofKey = await generateKeyPair('ES256');
    const proof = await new SignJWT({ htm: 'POST', htu: `${suite.server.url}/oauth2/token`, jti: randomBytes(16).toString('hex') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(proofKey.publicKey) })
      .setIssuedAt()
      .sign(proofKey.privateKey);
    const bound = await request(suite.server.url)
      .post('/oauth2/token')
      .set('DPoP', proof)
      .type('form')
      .send(await body())
      .expect(200);
    expect(bodyOf<TokenBody>(bound).token_type).toBe('DPoP');
    await context.close();
  });

  it("searches clients, edits a client's scopes and grant types, rotates its secret and removes it", async () => {
    const { clientId, secret } = await world();
    const { context, page } = await suite.signedInTab('Clients');
    await page.getByLabel('Search clients').fill(clientId);
    await expectPage(page.getByRole('table', { name: /Clients \(1 of/ })).toBeVisible();

    await page.getByRole('button', { name: `Edit ${clientId}` }).click();
    await page.getByLabel('Allowed scopes').fill('read write');
    await page.getByRole('group', { name: 'Grant types' }).getByLabel('refresh_token').check();
    await page.getByRole('button', { name: 'Save client' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} saved.`);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: clientId }) });
    await expectPage(row).toContainText('read write');
    await expectPage(row).toContainText('client_credentials refresh_token');

    await page.getByRole('button', { name: `Rotate secret of ${clientId}` }).click();
    const rotated = await page.getByLabel('Client secret').inputValue();
    expect(rotated).not.toBe(secret);
    await tokenRequest(clientId, secret, 'read').expect(401);
    await tokenRequest(clientId, rotated, 'read').expect(200);

    await page.getByRole('button', { name: `Remove ${clientId}` }).click();
    await expectPage(page.getByRole('rowheader', { name: clientId })).toHaveCount(0);
    await tokenRequest(clientId, rotated, 'read').expect(401);
    await context.close();
  });

  it('defines a consent ticket in one form and one request, reads it as a sentence, and the client gets a token for the resource scope', async () => {
    const { clientId, definition, secret } = await world();
    await tokenRequest(clientId, secret, `${definition}:read`).expect(400);
    const { context, page, requests } = await suite.signedInTab('Consent tickets');
    const ticketId = unique('T');
    await fillTicketForm(page, {
      clientId,
      definition,
      scopes: ['read'],
      purpose: 'Your doctor follows your blood glucose level',
      ticketId,
      requestedResourceId: 'glucose-readings',
      seconds: '1800',
    });
    const before = requests.length;
    await page.getByRole('button', { name: 'Create ticket' }).click();
    const sentence = `${clientId} may read ${definition} for 'Your doctor follows your blood glucose level', at most 30 min, ticket ${ticketId}`;
    await expectPage(page.getByText(sentence)).toBeVisible();
    expect(
      requests
        .slice(before)
        .filter((sent) => sent.method() !== 'GET')
        .map((sent) => `${sent.method()} ${new URL(sent.url()).pathname}`),
    ).toEqual(['PATCH /admin']);

    const token = await tokenRequest(clientId, secret, `${definition}:read`).expect(200);
    expect(bodyOf<TokenBody>(token).expires_in).toBe(1800);
    const claims = accessTokenClaims(bodyOf<TokenBody>(token).access_token);
    expect(claims.permissions).toEqual([
      expect.objectContaining({ resource_id: 'glucose-readings', resource_type: definition, resource_scopes: ['read'], ticket_id: ticketId }),
    ]);
    await context.close();
  });

  it("clears the client picker's screen-reader status with the form once a ticket is created", async () => {
    const { clientId, definition } = await world();
    const { context, page } = await suite.signedInTab('Consent tickets');
    const form = page.getByRole('form', { name: 'Create a consent ticket' });
    const status = form
      .locator('.combobox')
      .filter({ has: page.getByRole('combobox', { name: 'Client', exact: true }) })
      .locator('[aria-live]');
    const ticketId = unique('T');
    await fillTicketForm(page, { clientId, definition, scopes: ['read'], purpose: 'Cleared', ticketId, requestedResourceId: 'cleared', seconds: '600' });
    await expectPage(status).toHaveText([`${clientId} chosen.`]);
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByText(new RegExp(`, ticket ${ticketId}$`))).toBeVisible();
    await expectPage(page.getByRole('combobox', { name: 'Client', exact: true })).toHaveValue('');
    await expectPage(status).toHaveText(['']);
    await context.close();
  });

  it('shows a refused change beside the field the server names, with a focused summary, and writes nothing', async () => {
    const { clientId, definition } = await world();
    const taken = unique('T');
    const { context, page } = await suite.signedInTab('Consent tickets');
    await fillTicketForm(page, { clientId, definition, scopes: ['read'], purpose: 'First', ticketId: taken, requestedResourceId: 'first', seconds: '600' });
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByText(new RegExp(`, ticket ${taken}$`))).toBeVisible();

    const counts = await rowCounts(suite.server);
    await fillTicketForm(page, { clientId, definition, scopes: ['read'], purpose: 'Second', ticketId: taken, requestedResourceId: 'second', seconds: '600' });
    await page.getByRole('button', { name: 'Create ticket' }).click();
    const ticketField = page.getByLabel('Ticket ID');
    await expectPage(ticketField).toHaveAttribute('aria-invalid', 'true');
    await expectPage(ticketField).toHaveAccessibleDescription(/ticketId|ticket/i);
    const summary = page.getByRole('alert');
    await expectPage(summary).toBeFocused();
    await expectPage(summary).toContainText('nothing was saved');
    expect(await rowCounts(suite.server)).toEqual(counts);
    await screenshot(page, 'error-beside-field');

    // A duration the server refuses lands beside the duration field.
    await page.getByLabel('Ticket ID').fill(unique('T'));
    await page.getByLabel('Maximum duration').fill('0');
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByLabel('Maximum duration')).toHaveAttribute('aria-invalid', 'true');
    await expectPage(page.getByLabel('Ticket ID')).not.toHaveAttribute('aria-invalid', 'true');
    expect(await rowCounts(suite.server)).toEqual(counts);
    await context.close();
  });

  it('removes a ticket with its whole chain in one request, and the token is refused again', async () => {
    const { clientId, definition, secret } = await world();
    const { context, page, requests } = await suite.signedInTab('Consent tickets');
    const ticketId = unique('T');
    await fillTicketForm(page, { clientId, definition, scopes: ['read'], purpose: 'To be removed', ticketId, requestedResourceId: 'r', seconds: '60' });
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByRole('button', { name: `Remove ticket ${ticketId}` })).toBeVisible();
    await tokenRequest(clientId, secret, `${definition}:read`).expect(200);
    const counts = await rowCounts(suite.server);

    const before = requests.length;
    await page.getByRole('button', { name: `Remove ticket ${ticketId}` }).click();
    await expectPage(page.getByRole('button', { name: `Remove ticket ${ticketId}` })).toHaveCount(0);
    expect(requests.slice(before).filter((sent) => sent.method() !== 'GET')).toHaveLength(1);
    const after = await rowCounts(suite.server);
    for (const table of ['purpose', 'capability_ticket', 'requested_resource', 'requested_resource_scopes', 'requested_resources_capability_tickets']) {
      expect(after[table]).toBe(counts[table] - 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await tokenRequest(clientId, secret, `${definition}:read`).expect(400);
    await context.close();
  });

  it('shows the audit trail newest first, and it grows with each change', async () => {
    const { context, page } = await suite.signedInTab('Audit trail');
    const caption = page.getByRole('heading', { name: /Audit trail, newest first/ });
    const total = Number(/\((\d+) events\)/.exec((await caption.textContent()) ?? '')![1]);
    const name = unique('audited');
    await patchAdmin(suite.server, [add('resource-definition', { attributes: { name, description: '' } })]).expect(200);
    await openScreen(page, 'Authorization server');
    await openScreen(page, 'Audit trail');
    await expectPage(caption).toContainText(`(${total + 1} events)`);
    const newest = page.getByRole('list', { name: 'Changes, newest first' }).locator('li.entry').first();
    await expectPage(newest).toContainText(`added resource definition ${name}`);
    if (total + 1 > 50) {
      await page.getByRole('button', { name: 'Older' }).click();
      await expectPage(caption).toContainText('page 2 of');
      await page.getByRole('button', { name: 'Newer' }).click();
      await expectPage(caption).toContainText('page 1 of');
    }
    await context.close();
  });

  it('explains a granted and a refused token request', async () => {
    const { clientId, definition } = await world(['read', 'write']);
    const { context, page } = await suite.signedInTab('Consent tickets');
    await fillTicketForm(page, {
      clientId,
      definition,
      scopes: ['read'],
      purpose: 'Explained',
      ticketId: unique('T'),
      requestedResourceId: 'explained',
      seconds: '900',
    });
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByText(`${clientId} may read ${definition}`)).toBeVisible();

    await openScreen(page, 'Explain');
    await pick(page, 'Client', clientId);
    await page.getByLabel('Scopes').fill(`${definition}:read`);
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Granted' })).toBeVisible();
    await expectPage(page.getByText(/living 15 min/)).toBeVisible();
    await screenshot(page, 'explain');

    await page.getByLabel('Scopes').fill(`${definition}:write`);
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Refused' })).toBeVisible();
    await expectPage(page.getByRole('listitem').filter({ hasText: `${definition}:write` })).toContainText('refused');

    // A resource indicator no data source answers to: refused, and the verdict says why.
    await page.getByLabel('Scopes').fill(`${definition}:read`);
    await page.getByLabel('Resources').fill('https://nowhere.example/api');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Refused' })).toBeVisible();
    await expectPage(page.getByText(/nowhere.example\/api" is no enrolled data source/)).toBeVisible();
    await context.close();
  });

  it('gives a ticket purposes of use, and explain names the code a UDAP request matches or the purpose of use that is missing', async () => {
    const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
    const { clientId, definition } = await world(['read']);
    const { context, page } = await suite.signedInTab('Consent tickets');
    const ticketId = unique('T');
    await fillTicketForm(page, {
      clientId,
      definition,
      scopes: ['read'],
      purpose: unique('Treatment'),
      ticketId,
      requestedResourceId: 'treated',
      seconds: '900',
    });
    await page.getByLabel('Purposes of use (UDAP)').fill(`${TREAT} ${TREAT}`);
    await page.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(page.getByText(`${clientId} may read ${definition}`)).toBeVisible();
    const [purpose] = await suite.server.dataSource.query<{ purposes_of_use: string[] }[]>(
      'SELECT p.purposes_of_use FROM purpose p JOIN capability_ticket t ON t.purpose_id = p.id WHERE t.ticket_id = $1',
      [ticketId],
    );
    expect(purpose.purposes_of_use).toEqual([TREAT]);

    await openScreen(page, 'Explain');
    await pick(page, 'Client', clientId);
    await page.getByLabel('Scopes').fill(`${definition}:read`);
    await page.getByLabel('Purposes of use').fill(TREAT);
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Granted' })).toBeVisible();
    await expectPage(page.getByText(`purpose of use ${TREAT}`)).toBeVisible();

    await page.getByLabel('Purposes of use').fill('urn:oid:2.16.840.1.113883.5.8#HPAYMT');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Refused' })).toBeVisible();
    await expectPage(page.getByText(/no consent ticket covers purpose of use "urn:oid:2\.16\.840\.1\.113883\.5\.8#HPAYMT"/)).toBeVisible();

    // A bare code is refused beside its own field.
    await page.getByLabel('Purposes of use').fill('TREAT');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByLabel('Purposes of use')).toHaveAccessibleDescription(/not a purpose-of-use code/);
    await context.close();
  });

  it('enrols a data source serving a definition, edits it and removes it', async () => {
    const { clientId, definition } = await world();
    const { context, page } = await suite.signedInTab('Data sources');
    const name = unique('glucose-rs');
    const uri = `https://${name}.example/api`;
    await page.getByLabel('Data source name').fill(name);
    await page.getByLabel('Kind').selectOption('resource-server');
    await page.getByLabel('Resource URI').fill(uri);
    // This picker adds to the list and empties itself for the next definition.
    await page.getByRole('combobox', { name: 'Add a definition served' }).fill(definition);
    await page.getByRole('option', { name: definition, exact: true }).click();
    await expectPage(page.getByRole('combobox', { name: 'Add a definition served' })).toHaveValue('');
    await expectPage(page.getByRole('group', { name: 'Definitions served' }).getByLabel(definition)).toBeChecked();
    await pick(page, 'Introspection client', clientId);
    await page.getByRole('button', { name: 'Enrol data source' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
    await expectPage(row).toContainText(definition);
    await expectPage(row).toContainText(clientId);

    await page.getByRole('button', { name: `Edit data source ${name}` }).click();
    await page.getByLabel('Resource URI').fill(`${uri}/v2`);
    await page.getByRole('group', { name: 'Definitions served' }).getByLabel(definition).uncheck();
    await page.getByRole('button', { name: 'Save data source' }).click();
    await expectPage(row).toContainText(`${uri}/v2`);
    await expectPage(row).not.toContainText(definition);

    await page.getByRole('button', { name: `Remove data source ${name}` }).click();
    await expectPage(page.getByRole('rowheader', { name })).toHaveCount(0);
    await context.close();
  });

  it("says whom a data source may ask on a client's behalf (its token-exchange delegations)", async () => {
    const [facade, lab, delegation] = freshIds(3);
    const facadeName = unique('fhir-facade');
    const labName = unique('lab-system');
    await patchAdmin(suite.server, [
      add('data-source', { id: facade, attributes: { name: facadeName, kind: 'resource-server', resourceUri: `https://${facadeName}.example/fhir` } }),
      add('data-source', { id: lab, attributes: { name: labName, kind: 'resource-server', resourceUri: `https://${labName}.example/api` } }),
      add('data-source-delegation', {
        id: delegation,
        attributes: { scopes: [] },
        relationships: { from: ref('data-source', facade), to: ref('data-source', lab) },
      }),
    ]).expect(200);
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByRole('searchbox', { name: 'Search data sources' }).fill(facadeName);
    await page.getByRole('searchbox', { name: 'Search data sources' }).press('Enter');
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: facadeName }) });
    await expectPage(row).toContainText(`May ask on a client's behalf: ${labName} (every scope it serves)`);
    await context.close();
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    const { context, page } = await suite.signedInTab(undefined, PHONE);
    for (const name of ['Consent tickets', 'Clients']) {
      await openScreen(page, name);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    }
    await openScreen(page, 'Consent tickets');
    await context.close();
  });

  it('works with the keyboard alone: sign in by typing and pressing Enter', async () => {
    const { context, page } = await openTab(suite.browser);
    await page.goto(`${suite.server.adminUrl}/console`);
    await page.keyboard.press('Tab');
    await expectPage(page.getByLabel('Admin token')).toBeFocused();
    await page.keyboard.type(suite.server.adminToken);
    await page.keyboard.press('Enter');
    await expectPage(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await context.close();
  });
});

/** `count` clients whose clientIds start with `prefix` (and a definition with a read scope), written in one request. */
async function manyClients(prefix: string, count: number) {
  const definition = unique(`${prefix}-def`);
  const secret = `secret-${randomBytes(12).toString('hex')}`;
  await patchAdmin(suite.server, [
    ...Array.from({ length: count }, (_, index) =>
      add('uma-client', {
        attributes: {
          clientId: `${prefix}-${String(index).padStart(2, '0')}`,
          clientName: `Client ${index}`,
          allowedScopes: `${definition}:read`,
          clientSecret: secret,
        },
      }),
    ),
    add('resource-definition', { lid: 'definition', attributes: { name: definition, description: '' } }),
    add('scope', { attributes: { name: 'read' }, relationships: { resourceDefinition: { data: { type: 'resource-definition', lid: 'definition' } } } }),
  ]).expect(200);
  return { definition, secret };
}

/** The query parameters of the admin interface's list requests a tab made. */
function listQueries(requests: { method(): string; url(): string }[]): URLSearchParams[] {
  const collections =
    /^\/admin\/(uma-client|resource-definition|scope|purpose|capability-ticket|requested-resource|requested-resource-scopes|requested-resources-capability-tickets|data-source|data-source-resource-definitions|audit-event|disclosure)$/;
  return requests.filter((sent) => sent.method() === 'GET' && collections.test(new URL(sent.url()).pathname)).map((sent) => new URL(sent.url()).searchParams);
}

describe('the console at scale', () => {
  it('never reads a whole collection: every list asks for one page of at most 100 records', async () => {
    const { context, page, requests } = await suite.signedInTab();
    for (const name of ['Resource definitions', 'Data sources', 'Clients', 'Consent tickets', 'Explain', 'Audit trail']) await openScreen(page, name);
    await page.getByText('Loading…').waitFor({ state: 'detached' });
    const queries = listQueries(requests);
    expect(queries.length).toBeGreaterThan(3);
    for (const query of queries) {
      expect(query.get('page[number]')).toBe('1');
      expect(Number(query.get('page[size]'))).toBeLessThanOrEqual(100);
    }
    await context.close();
  });

  it('searches clients on the server and pages through the matches', async () => {
    const prefix = unique('paged');
    await manyClients(prefix, 23);
    const { context, page, requests } = await suite.signedInTab('Clients');
    await page.getByRole('searchbox', { name: 'Search clients' }).fill(prefix.toUpperCase());
    const table = page.getByRole('table', { name: /^Clients \(23 of \d+\)$/ });
    await expectPage(table).toBeVisible();
    await expectPage(table.getByRole('rowheader')).toHaveCount(20);
    expect(listQueries(requests).some((query) => query.get('filter[search]') === prefix.toUpperCase() && query.get('page[size]') === '20')).toBe(true);
    await page.getByRole('navigation', { name: 'Client pages' }).getByRole('button', { name: 'Next page' }).click();
    await expectPage(page.getByText('Page 2 of 2')).toBeVisible();
    await expectPage(table.getByRole('rowheader')).toHaveCount(3);
    // Newest first: the last three enrolled come first, so page 2 holds the three oldest.
    await expectPage(table.getByRole('rowheader', { name: `${prefix}-00` })).toBeVisible();
    await context.close();
  });

  it('searches resource definitions and data sources by the start of their names', async () => {
    const { definition } = await world();
    const { context, page } = await suite.signedInTab('Resource definitions');
    await page.getByRole('searchbox', { name: 'Search definitions' }).fill(definition.slice(0, -2));
    await expectPage(page.getByRole('rowheader')).toHaveText([definition]);
    await openScreen(page, 'Data sources');
    await page.getByRole('searchbox', { name: 'Search data sources' }).fill('no-such-source');
    await expectPage(page.getByText('No data source matches.')).toBeVisible();
    await context.close();
  });

  it('picks a client with the keyboard alone: type, arrow keys, Enter', async () => {
    const prefix = unique('keys');
    await manyClients(prefix, 3);
    const { context, page } = await suite.signedInTab('Consent tickets');
    const box = page.getByRole('combobox', { name: 'Client', exact: true });
    await expectPage(box).toHaveAttribute('aria-autocomplete', 'list');
    await box.focus();
    await page.keyboard.type(prefix);
    const options = page.getByRole('listbox', { name: 'Client suggestions' }).getByRole('option');
    await expectPage(options).toHaveText([`${prefix}-00`, `${prefix}-01`, `${prefix}-02`]);
    await expectPage(box).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expectPage(options.nth(1)).toHaveAttribute('aria-selected', 'true');
    await screenshot(page, 'client-picker');
    await expectPage(box).toHaveAttribute('aria-activedescendant', (await options.nth(1).getAttribute('id')) ?? 'missing');
    await page.keyboard.press('Enter');
    await expectPage(box).toHaveValue(`${prefix}-01`);
    await expectPage(box).toHaveAttribute('aria-expanded', 'false');
    await expectPage(page.getByRole('listbox')).toHaveCount(0);
    // Escape closes the list without choosing.
    await box.fill(`${prefix}-0`);
    await expectPage(options).toHaveCount(3);
    await page.keyboard.press('Escape');
    await expectPage(page.getByRole('listbox')).toHaveCount(0);
    await expectPage(box).toHaveValue(`${prefix}-0`);
    await context.close();
  });

  it("defines a ticket for a client found by typing among many, shows only that client's tickets, and the client gets a token", async () => {
    const prefix = unique('many');
    const { definition, secret } = await manyClients(prefix, 12);
    const { context, page } = await suite.signedInTab('Consent tickets');
    const box = page.getByRole('combobox', { name: 'Client', exact: true });
    await box.fill(prefix);
    await expectPage(page.getByRole('option')).toHaveCount(10);
    await box.fill(`${prefix}-1`);
    await expectPage(page.getByRole('option')).toHaveText([`${prefix}-10`, `${prefix}-11`]);
    await page.getByRole('option', { name: `${prefix}-11` }).click();
    await pick(page, 'Resource definition', definition);
    await page.getByRole('group', { name: 'Scopes' }).getByLabel('read').check();
    await page.getByLabel('Purpose text').fill('Found by typing');
    const ticketId = unique('T');
    await page.getByLabel('Ticket ID').fill(ticketId);
    await page.getByLabel('Ticket name').fill('typed');
    await page.getByLabel('Requested resource ID').fill('typed');
    await page.getByLabel('Maximum duration').fill('600');
    await page.getByRole('button', { name: 'Create ticket' }).click();
    const sentence = `${prefix}-11 may read ${definition} for 'Found by typing', at most 10 min, ticket ${ticketId}`;
    await expectPage(page.getByText(sentence)).toBeVisible();
    const token = await tokenRequest(`${prefix}-11`, secret, `${definition}:read`).expect(200);
    expect(bodyOf<TokenBody>(token).expires_in).toBe(600);
    await tokenRequest(`${prefix}-10`, secret, `${definition}:read`).expect(400);

    // The Client filter shows one client's tickets: another client's replace these.
    const filters = page.getByRole('search', { name: 'Ticket filters' });
    await filters.getByRole('textbox', { name: 'Client' }).fill(`${prefix}-10`);
    await filters.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.getByRole('heading', { name: `Tickets of ${prefix}-10` })).toBeVisible();
    await expectPage(page.getByText(`No consent ticket for ${prefix}-10 yet.`)).toBeVisible();
    await expectPage(page.getByText(sentence)).toHaveCount(0);
    await context.close();
  });
});

describe('the console and SMART scopes', () => {
  it("maps a definition to a FHIR type, sets a scope's SMART permissions, and explain shows what a SMART scope denotes", async () => {
    const { clientId, definition, clientRecordId } = await world(['read']);
    const type = `Fhir${randomBytes(4)
      .toString('hex')
      .replace(/\d/g, (digit) => 'ghijklmnop'[Number(digit)])}`;
    // A consent ticket covering read, written through the admin interface.
    const scopes = await suite.server.dataSource.query<{ id: number }[]>(
      'SELECT s.id FROM scope s JOIN resource_definition d ON d.id = s.resource_definition_id WHERE d.name = $1',
      [definition],
    );
    const [{ id: definitionId }] = await suite.server.dataSource.query<{ id: number }[]>('SELECT id FROM resource_definition WHERE name = $1', [definition]);
    await patchAdmin(suite.server, [
      add('purpose', { lid: 'purpose', attributes: { name: 'Mapped' } }),
      add('capability-ticket', {
        lid: 'ticket',
        attributes: { ticketId: unique('T'), ticketName: 'Mapped' },
        relationships: { purpose: { data: { type: 'purpose', lid: 'purpose' } }, umaClient: ref('uma-client', clientRecordId) },
      }),
      add('requested-resource', {
        lid: 'resource',
        attributes: { maxPermissionDuration: 600, requestedResourceId: 'mapped' },
        relationships: { resourceDefinition: ref('resource-definition', definitionId), umaClient: ref('uma-client', clientRecordId) },
      }),
      add('requested-resource-scopes', {
        relationships: {
          scope: ref('scope', scopes[0].id),
          purpose: { data: { type: 'purpose', lid: 'purpose' } },
          requestedResource: { data: { type: 'requested-resource', lid: 'resource' } },
        },
      }),
      add('requested-resources-capability-tickets', {
        relationships: {
          capabilityTicket: { data: { type: 'capability-ticket', lid: 'ticket' } },
          requestedResource: { data: { type: 'requested-resource', lid: 'resource' } },
        },
      }),
    ]).expect(200);

    const { context, page } = await suite.signedInTab('Resource definitions');
    await page.getByLabel('Definition to map').selectOption({ label: definition });
    await page.getByLabel('FHIR resource type', { exact: true }).fill(type);
    await page.getByRole('button', { name: 'Save mapping' }).click();
    await expectPage(page.getByRole('row', { name: new RegExp(definition) })).toContainText(type);

    await page.getByLabel('Scope to set').selectOption({ label: `${definition}: read` });
    await page.getByLabel('SMART permissions', { exact: true }).fill('sr');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await expectPage(page.getByRole('alert').first()).toContainText('SMART permission letters');
    await page.getByLabel('Scope to set').selectOption({ label: `${definition}: read` });
    await page.getByLabel('SMART permissions', { exact: true }).fill('rs');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await expectPage(page.getByRole('row', { name: new RegExp(definition) })).toContainText('read (rs)');

    await openScreen(page, 'Explain');
    await pick(page, 'Client', clientId);
    await page.getByLabel('Scopes').fill(`system/${type}.rs system/*.rs`);
    await page.getByRole('button', { name: 'Explain' }).click();
    await expectPage(page.getByRole('heading', { name: 'Granted' })).toBeVisible();
    await expectPage(
      page
        .getByRole('listitem')
        .filter({ hasText: `system/${type}.rs: granted — denotes` })
        .first(),
    ).toContainText(`${definition}:read`);
    await expectPage(page.getByRole('listitem').filter({ hasText: 'system/*.rs: granted — expands to' })).toContainText(`system/${type}.rs`);
    await context.close();
  });
});

describe('the console and per-client token lifetimes', () => {
  it("sets a client's access token lifetime, shows a refused value beside the field, and clears it", async () => {
    const { clientId, secret } = await world();
    const { context, page } = await suite.signedInTab('Clients');
    await page.getByLabel('Search clients').fill(clientId);
    await page.getByRole('button', { name: `Edit ${clientId}` }).click();
    await page.getByLabel('Access token lifetime (seconds, optional)').fill('90000');
    await page.getByRole('button', { name: 'Save client' }).click();
    await expectPage(page.getByRole('alert').first()).toContainText('accessTokenLifetime');
    await page.getByLabel('Access token lifetime (seconds, optional)').fill('300');
    await page.getByRole('button', { name: 'Save client' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} saved.`);
    // An admin change reaches the token endpoint within a second (the client cache is change-fed).
    expect(await lifetimeOnceItIs(clientId, secret, 300)).toBe(300);

    await page.getByRole('button', { name: `Edit ${clientId}` }).click();
    expect(await page.getByLabel('Access token lifetime (seconds, optional)').inputValue()).toBe('300');
    await page.getByLabel('Access token lifetime (seconds, optional)').fill('');
    await page.getByRole('button', { name: 'Save client' }).click();
    // The status still says "saved" from the first save: wait for the second change to reach tokens.
    expect(await lifetimeOnceItIs(clientId, secret, 3600)).toBe(3600);
    await context.close();
  });

  /** The lifetime of the client's tokens once it is `expected`; the last one seen after 3 s. */
  async function lifetimeOnceItIs(clientId: string, secret: string, expected: number): Promise<number> {
    let seen = 0;
    await eventually(async () => {
      seen = bodyOf<TokenBody>(await tokenRequest(clientId, secret, 'uma_protection').expect(200)).expires_in;
      return seen === expected ? seen : undefined;
    }, 3_000).catch(() => undefined);
    return seen;
  }
});

describe('the console over HTTP', () => {
  it('is absent on the public port (404)', async () => {
    for (const path of ['/console', '/console/', '/console/app.js', '/CONSOLE']) {
      await request(suite.server.url).get(path).expect(404);
    }
  });

  it('is served on the admin port with a strict Content-Security-Policy and no inline script', async () => {
    const page = await request(suite.server.adminUrl)
      .get('/console')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const policy = page.headers['content-security-policy'];
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toContain('unsafe-inline');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.text).not.toMatch(/\sstyle=/);
    await request(suite.server.adminUrl)
      .get('/console/app.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    await request(suite.server.adminUrl)
      .get('/console/app.css')
      .expect(200)
      .expect('Content-Type', /text\/css/);
    await request(suite.server.adminUrl).get('/console/secrets.txt').expect(404);
    await request(suite.server.adminUrl).get('/console/..%2Fpackage.json').expect(404);
  });
});
