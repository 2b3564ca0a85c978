import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { add, getAdmin, patchAdmin } from '../support/admin.js';
import { browserSuite, openScreen, openTab } from '../support/browser.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource, type PatchResults } from '../support/bodies.js';

/**
 * The console as a first-time administrator reads it (docs/guides/console.md): errors that say
 * what is wrong once, forms that say what a choice will not do, an audit trail in people's names,
 * and a one-line hint beside each terse label, read by screen readers too.
 */
// No request leaves the admin listener, and the admin token is never in a URL.
const suite = browserSuite();

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** A client allowed only `<definition>:read`, and a definition with the scopes read and write. */
async function world() {
  const clientId = unique('glucose-app');
  const definition = unique('blood-glucose-level');
  const response = await patchAdmin(suite.server, [
    add('uma-client', {
      lid: 'client',
      attributes: {
        clientId,
        clientName: 'App',
        allowedScopes: `${definition}:read uma_protection`,
        clientSecret: `secret-${randomBytes(12).toString('hex')}`,
      },
    }),
    add('resource-definition', { lid: 'definition', attributes: { name: definition, description: 'Blood glucose' } }),
    ...['read', 'write'].map((name) =>
      add('scope', { attributes: { name }, relationships: { resourceDefinition: { data: { type: 'resource-definition', lid: 'definition' } } } }),
    ),
  ]).expect(200);
  return { clientId, definition, clientRecordId: bodyOf<PatchResults>(response)[0].data!.id };
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

async function createTicket(page: Page, values: { clientId: string; definition: string; purpose: string; ticketId: string }) {
  await pick(page, 'Client', values.clientId);
  await pick(page, 'Resource definition', values.definition);
  await page.getByRole('group', { name: 'Scopes' }).getByLabel('read').check();
  await page.getByLabel('Purpose text').fill(values.purpose);
  await page.getByLabel('Ticket ID').fill(values.ticketId);
  await page.getByLabel('Ticket name').fill(`Ticket ${values.ticketId}`);
  await page.getByLabel('Requested resource ID').fill('glucose-readings');
  await page.getByLabel('Maximum duration').fill('900');
  await page.getByRole('button', { name: 'Create ticket' }).click();
  await expectPage(page.getByText(`Ticket ${values.ticketId} created.`)).toBeVisible();
}

/** The audit trail's newest entry, one request (the trail is newest first; this suite runs one test at a time). */
async function newestAuditRow(page: Page) {
  await openScreen(page, 'Audit trail');
  return page.getByRole('list', { name: 'Changes, newest first' }).locator('li.entry').first();
}

describe('signing in', () => {
  it('says once, beside the field, that a wrong admin token is wrong', async () => {
    const { context, page } = await openTab(suite.browser);
    await page.goto(`${suite.server.adminUrl}/console`);
    await page.getByLabel('Admin token').fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const message = 'That admin token is wrong: check it and try again.';
    await expectPage(page.getByRole('alert')).toContainText(message);
    await expectPage(page.getByText(message)).toHaveCount(1);
    await expectPage(page.getByText('nothing was saved')).toHaveCount(0);
    await expectPage(page.getByLabel('Admin token')).toHaveAttribute('aria-invalid', 'true');
    await expectPage(page.getByLabel('Admin token')).toHaveAccessibleDescription(/That admin token is wrong/);
    await context.close();
  });
});

describe('the ticket form', () => {
  it('says beside the scopes that the client is not allowed a chosen scope, so the ticket will not grant it', async () => {
    const { clientId, definition } = await world();
    const { context, page } = await suite.signedInTab('Consent tickets');
    await pick(page, 'Client', clientId);
    await pick(page, 'Resource definition', definition);
    const scopes = page.getByRole('group', { name: 'Scopes' });
    const warning = `${clientId} is not allowed ${definition}:write: add it to the client's allowed scopes, or the ticket will not grant it.`;
    await scopes.getByLabel('read').check();
    await scopes.getByLabel('write').check();
    await expectPage(page.getByText(warning)).toBeVisible();
    await expectPage(scopes).toHaveAccessibleDescription(/is not allowed .*:write/);
    // The allowed scope draws no warning.
    await expectPage(page.getByText(`is not allowed ${definition}:read`)).toHaveCount(0);
    await scopes.getByLabel('write').uncheck();
    await expectPage(page.getByText(warning)).toHaveCount(0);
    await context.close();
  });

  it('relates a new ticket to the existing purpose of the same text instead of adding another', async () => {
    const { clientId, definition } = await world();
    const purpose = unique('Your doctor follows your blood glucose level');
    const { context, page } = await suite.signedInTab('Consent tickets');
    await createTicket(page, { clientId, definition, purpose, ticketId: unique('T') });
    await createTicket(page, { clientId, definition, purpose, ticketId: unique('T') });
    const purposes = bodyOf<JsonApiDocument>(await getAdmin(suite.server, `/admin/purpose?filter[name]=${encodeURIComponent(purpose)}`).expect(200));
    expect((purposes.data as JsonApiResource[]).length).toBe(1);
    const tickets = bodyOf<JsonApiDocument>(
      await getAdmin(suite.server, `/admin/capability-ticket?filter[purpose]=${(purposes.data as JsonApiResource[])[0].id}`).expect(200),
    );
    expect((tickets.data as JsonApiResource[]).length).toBe(2);
    await context.close();
  });
});

/** The change number of an audit entry's first operation. */
async function changeNumber(entry: Locator): Promise<string> {
  return /change (\d+)/.exec((await entry.locator('a.change-number').first().textContent()) ?? '')![1];
}

describe('the audit trail', () => {
  it('names a client by its client id, not its numeric id', async () => {
    const { clientId, clientRecordId } = await world();
    await patchAdmin(suite.server, [
      { op: 'replace', path: `/uma-client/${clientRecordId}`, value: { type: 'uma-client', id: clientRecordId, attributes: { clientName: 'App 2' } } },
    ]).expect(200);
    const { context, page } = await suite.signedInTab('Authorization server');
    const row = await newestAuditRow(page);
    await expectPage(row).toContainText(`changed client ${clientId}: client name from 'App' to 'App 2'`);
    await expectPage(row).not.toContainText(`client ${clientRecordId}`);
    await context.close();
  });

  it('names a removed resource definition by its name, from the snapshot before the removal', async () => {
    const name = unique('removed-definition');
    const response = await patchAdmin(suite.server, [add('resource-definition', { attributes: { name, description: '' } })]).expect(200);
    const id = bodyOf<PatchResults>(response)[0].data!.id;
    await patchAdmin(suite.server, [{ op: 'remove', path: `/resource-definition/${id}` }]).expect(200);
    const { context, page } = await suite.signedInTab('Authorization server');
    const row = await newestAuditRow(page);
    await expectPage(row).toContainText(`removed resource definition ${name}`);
    await context.close();
  });

  it('lists only the fields that changed, from what to what', async () => {
    const { clientId, definition, clientRecordId } = await world();
    const allowedScopes = `${definition}:read ${definition}:write uma_protection`;
    await patchAdmin(suite.server, [
      { op: 'replace', path: `/uma-client/${clientRecordId}`, value: { type: 'uma-client', id: clientRecordId, attributes: { allowedScopes } } },
    ]).expect(200);
    const { context, page } = await suite.signedInTab('Authorization server');
    const row = await newestAuditRow(page);
    await expectPage(row.getByRole('listitem')).toHaveText([
      `change ${await changeNumber(row)} changed client ${clientId}: allowed scopes from '${definition}:read uma_protection' to '${allowedScopes}'`,
    ]);
    await context.close();
  });
});

describe('hints beside terse labels', () => {
  it('says what rotating the key does, tied to the button', async () => {
    const { context, page } = await suite.signedInTab('Authorization server');
    await expectPage(page.getByRole('button', { name: 'Rotate key' })).toHaveAccessibleDescription(
      /new signing key.*old key stays in the JWKS while tokens it signed live/,
    );
    await context.close();
  });

  it("says what a data source's kind means, tied to the field", async () => {
    const { context, page } = await suite.signedInTab('Data sources');
    await expectPage(page.getByLabel('Kind')).toHaveAccessibleDescription(/resource server .* or an identity provider/);
    await context.close();
  });

  it('says what the requested resource ID is, tied to the field', async () => {
    const { context, page } = await suite.signedInTab('Consent tickets');
    await expectPage(page.getByLabel('Requested resource ID')).toHaveAccessibleDescription(/resource at the data source/);
    await context.close();
  });

  it("says what explain's resources are, tied to the field", async () => {
    const { context, page } = await suite.signedInTab('Explain');
    await expectPage(page.getByLabel('Resources')).toHaveAccessibleDescription(/Resource indicators \(RFC 8707\): the data sources the token would be for/);
    await context.close();
  });
});

describe('the secret panel', () => {
  it('warns before Done that the secret is shown only now, and ties the warning to the button', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    await page.getByLabel('Client ID').fill(unique('reader'));
    await page.getByLabel('Client name').fill('Glucose reader');
    await page.getByLabel('Allowed scopes').fill('read');
    await page.getByRole('button', { name: 'Enrol client' }).click();
    const warning = 'The secret is shown only now: copy it before you press Done.';
    await expectPage(page.getByText(warning)).toBeVisible();
    await expectPage(page.getByRole('button', { name: 'Done' })).toHaveAccessibleDescription(/The secret is shown only now: copy it before you press Done\./);
    await context.close();
  });
});
