import request from 'supertest';
import type { Page } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { patchAdmin } from '../support/admin.js';
import { browserSuite, DESKTOP, openScreen, PHONE, screenshot, takeRequestedUrls } from '../support/browser.js';
import { bodyOf, type PatchResults, type TokenBody } from '../support/bodies.js';
import { basic } from '../support/factories.js';
import { freshDatabase } from '../support/test-app.js';

/**
 * The console as a first-time administrator meets it (docs/guides/console.md): on a database of
 * its own, the seed's four wallet activities in the seed's order (the data source before any
 * client), then a ticket; the tickets screen among thousands of tickets; the audit trail read as
 * sentences, one entry per request; the layout at 1280 px and on a phone.
 */
// No request leaves the admin listener, and the admin token is never in a URL.
const suite = browserSuite(async () => ({ DATABASE_URL: await freshDatabase('console_newcomer') }));

// Run in the page (Playwright sends these functions' source to the browser); the tests' TypeScript has no DOM library.
declare const getComputedStyle: (element: unknown) => { overflowX: string };
type PageElement = {
  getBoundingClientRect(): { top: number };
  getClientRects(): { length: number };
  scrollWidth: number;
  clientWidth: number;
  className: string;
  textContent: string | null;
};

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

function tokenRequest(clientId: string, secret: string, scope: string) {
  return request(suite.server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(clientId, secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
}

/** What the walk made, for the tests after it. */
const walked = { clientSecret: '', ticketId: 'T-1' };

describe("the seed's four wallet activities, in the seed's order", () => {
  it('enrols the definitions, a data source with its introspection client made in place, and a client; a ticket then gets the client a token', async () => {
    const { context, page } = await suite.signedInTab();
    // 1. The authorization server.
    await expectPage(page.getByText(suite.server.url, { exact: true })).toBeVisible();
    await expectPage(page.getByRole('button', { name: 'Rotate key' })).toBeVisible();
    await screenshot(page, 'authorization-server');

    // 2. Resource definitions: an empty screen shows one form, the one that adds a definition.
    await openScreen(page, 'Resource definitions');
    await expectPage(page.getByText('No resource definition yet')).toBeVisible();
    await expectPage(page.locator('main form')).toHaveCount(1);
    await expectPage(page.getByRole('form', { name: 'Add a resource definition' })).toBeVisible();
    await screenshot(page, 'definitions-empty');
    await page.getByLabel('Definition name').fill('blood-glucose-level');
    await page.getByLabel('Description').fill('Blood glucose measurements');
    await page.getByRole('button', { name: 'Add definition' }).click();
    await expectPage(page.getByRole('rowheader', { name: 'blood-glucose-level' })).toBeVisible();
    await page.getByLabel('Resource definition', { exact: true }).selectOption({ label: 'blood-glucose-level' });
    await page.getByLabel('Scope name').fill('read');
    await page.getByRole('button', { name: 'Add scope' }).click();
    await expectPage(page.getByRole('button', { name: 'Remove scope read of blood-glucose-level' })).toBeVisible();
    await screenshot(page, 'resource-definitions');

    // 3. A data source, before any client: none is offered, one is enrolled in place, in the same request.
    await openScreen(page, 'Data sources');
    await page.getByLabel('Data source name').fill('Glucose API');
    await page.getByLabel('Kind').selectOption('resource-server');
    await page.getByLabel('Resource URI').fill('https://glucose.example/api');
    await page.getByRole('combobox', { name: 'Add a definition served' }).fill('blood');
    await page.getByRole('option', { name: 'blood-glucose-level', exact: true }).click();
    await page.getByRole('combobox', { name: 'Introspection client' }).fill('g');
    await expectPage(page.getByText('No match.')).toHaveCount(1);
    await expectPage(page.getByRole('listbox', { name: 'Introspection client suggestions' }).getByRole('option')).toHaveCount(0);
    await page.getByRole('button', { name: 'Enrol a new introspection client' }).click();
    await page.getByLabel('New client ID').fill('glucose-api');
    await page.getByLabel('New client name').fill('Glucose API');
    await page.getByRole('button', { name: 'Enrol data source' }).click();
    await expectPage(page.getByRole('status')).toContainText('Data source Glucose API enrolled with its introspection client glucose-api.');
    const apiSecret = await page.getByLabel('Client secret').inputValue();
    const source = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Glucose API' }) });
    await expectPage(source).toContainText('blood-glucose-level');
    await expectPage(source).toContainText('glucose-api');
    await expectPage(source).toHaveAttribute('aria-current', 'true');
    await screenshot(page, 'data-sources');
    await page.getByRole('button', { name: 'Done' }).click();
    await tokenRequest('glucose-api', apiSecret, 'uma_protection').expect(200);

    // 4. A client, configured for the UMA grant, with a redirect URL.
    await openScreen(page, 'Clients');
    await page.getByLabel('Client ID').fill('glucose-app');
    await page.getByLabel('Client name').fill('Glucose app');
    await page.getByLabel('Allowed scopes').fill('blood-glucose-level:read');
    await page
      .getByRole('group', { name: 'Grant types' })
      .getByLabel(/UMA grant/)
      .check();
    await page.getByLabel('Redirect URIs (optional, one per line)').fill('https://glucose-app.example/callback');
    await page.getByRole('button', { name: 'Enrol client' }).click();
    walked.clientSecret = await page.getByLabel('Client secret').inputValue();
    // The whole list, the new client highlighted among the others (not "Clients (1 of 2)").
    const clients = page.getByRole('table', { name: 'Clients (2)' });
    await expectPage(clients.getByRole('rowheader', { name: 'glucose-api' })).toBeVisible();
    await expectPage(clients.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'glucose-app' }) })).toHaveAttribute('aria-current', 'true');
    await screenshot(page, 'clients');
    await page.getByRole('button', { name: 'Done' }).click();

    // Then a consent ticket: the newest tickets show it, and the client gets a token.
    await openScreen(page, 'Consent tickets');
    await expectPage(page.getByText('No consent ticket yet')).toBeVisible();
    const form = page.getByRole('form', { name: 'Create a consent ticket' });
    await pick(page, 'Client', 'glucose-app');
    await pick(page, 'Resource definition', 'blood-glucose-level');
    await form.getByRole('group', { name: 'Scopes' }).getByLabel('read').check();
    await form.getByLabel('Purpose text').fill('Your doctor follows your blood glucose level');
    await form.getByLabel('Ticket ID').fill(walked.ticketId);
    await form.getByLabel('Ticket name').fill('Glucose follow-up');
    await form.getByLabel('Requested resource ID').fill('patient-4711');
    await form.getByLabel('Maximum duration').fill('1800');
    await form.getByRole('button', { name: 'Create ticket' }).click();
    await expectPage(
      page.getByText("glucose-app may read blood-glucose-level for 'Your doctor follows your blood glucose level', at most 30 min, ticket T-1"),
    ).toBeVisible();
    const token = await tokenRequest('glucose-app', walked.clientSecret, 'blood-glucose-level:read').expect(200);
    expect(bodyOf<TokenBody>(token).expires_in).toBeLessThanOrEqual(1800);
    await page.reload();
    await expectPage(page.getByText('1 active token')).toBeVisible();
    await screenshot(page, 'consent-tickets');
    await context.close();
  });
});

describe('the data-source form', () => {
  it('offers as introspection client only clients allowed uma_protection', async () => {
    await patchAdmin(suite.server, [
      {
        op: 'add',
        path: '/uma-client',
        value: { type: 'uma-client', attributes: { clientId: 'picker-protected', clientName: 'P', allowedScopes: 'uma_protection' } },
      },
      {
        op: 'add',
        path: '/uma-client',
        value: { type: 'uma-client', attributes: { clientId: 'picker-plain', clientName: 'Q', allowedScopes: 'blood-glucose-level:read' } },
      },
    ]).expect(200);
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByRole('combobox', { name: 'Introspection client' }).fill('picker-');
    await expectPage(page.getByRole('listbox', { name: 'Introspection client suggestions' }).getByRole('option')).toHaveText(['picker-protected']);
    await context.close();
  });

  it("says what is wrong in the console's own words, beside the field", async () => {
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByLabel('Data source name').fill('Second glucose API');
    await page.getByLabel('Resource URI').fill('https://glucose.example/api');
    await page.getByRole('button', { name: 'Enrol data source' }).click();
    await page.getByRole('alert').waitFor();
    const field = page.getByLabel('Resource URI');
    await expectPage(field).toHaveAccessibleDescription(/Another data source already has this resource URI/);
    await expectPage(page.getByRole('alert')).toContainText('Another data source already has this resource URI: each data source has its own.');
    await expectPage(page.getByRole('alert')).not.toContainText('resourceUri');
    await context.close();
  });
});

describe('the audit trail', () => {
  it('reads as sentences: one entry per request with its change numbers, related records by name, never a bare id', async () => {
    const { context, page } = await suite.signedInTab('Audit trail');
    const entries = page.getByRole('list', { name: 'Changes, newest first' }).locator('li.entry');
    // The ticket of the walk: five operations of one request, one entry.
    const ticket = entries.filter({ hasText: 'added ticket T-1' });
    await expectPage(ticket).toHaveCount(1);
    await expectPage(ticket.locator('ol.operations > li')).toHaveCount(5);
    await expectPage(ticket).toContainText("added purpose 'Your doctor follows your blood glucose level'");
    await expectPage(ticket).toContainText("added ticket T-1 for client glucose-app with purpose 'Your doctor follows your blood glucose level'");
    await expectPage(ticket).toContainText(
      'added requested resource patient-4711 for client glucose-app, of resource definition blood-glucose-level, at most 30 min',
    );
    await expectPage(ticket).toContainText('added the binding of scope read of blood-glucose-level to requested resource patient-4711');
    await expectPage(ticket).toContainText('added the combination of ticket T-1 with requested resource patient-4711');
    await expectPage(ticket.getByRole('heading')).toContainText('Changes ');
    // The data source and its client in place: one request, names only.
    await expectPage(entries.filter({ hasText: 'added data source Glucose API' })).toContainText(
      "added client glucose-api with allowed scopes 'uma_protection'",
    );
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/umaClient|capabilityTicket|requestedResource:|scope \d|client \d/);
    expect(text).not.toContain('→');
    await screenshot(page, 'audit-trail');
    await context.close();
  });

  it('traces "withdrawn … by change N" from the Disclosures screen to that change, and back to the disclosures it withdrew', async () => {
    const { context, page } = await suite.signedInTab('Consent tickets');
    await page.getByRole('button', { name: `Remove ticket ${walked.ticketId}` }).click();
    await expectPage(page.getByRole('alertdialog')).toContainText(`Removing ticket ${walked.ticketId} withdraws 1 active token`);
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove and withdraw' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Ticket ${walked.ticketId} removed`);

    await openScreen(page, 'Disclosures');
    const sentence = page.locator('ul.sentences li .sentence').first();
    await expectPage(sentence).toContainText(', withdrawn at ');
    const link = sentence.getByRole('link', { name: /^change \d+$/ });
    const change = /(\d+)$/.exec((await link.textContent()) ?? '')![1];
    await screenshot(page, 'disclosures');
    await link.click();
    await expectPage(page.getByRole('heading', { level: 2, name: `Change ${change}` })).toBeVisible();
    const operation = page.locator(`li#change-${change}`);
    await expectPage(operation).toHaveAttribute('aria-current', 'true');
    await expectPage(operation).toContainText('removed the combination of ticket T-1 with requested resource patient-4711, which withdrew 1 active token');
    await screenshot(page, 'audit-change');
    await operation.getByRole('link', { name: 'the withdrawn disclosures' }).click();
    await expectPage(page.getByRole('heading', { level: 1, name: 'Disclosures' })).toBeVisible();
    await expectPage(page.locator('ul.sentences li')).toHaveCount(1);
    await expectPage(page.locator('ul.sentences li')).toContainText('under ticket T-1, withdrawn at');
    await context.close();
  });
});

describe('the tickets screen with thousands of tickets', () => {
  const COUNT = 3000;

  beforeAll(async () => {
    // Two clients share the tickets; the rows get the ids the server would (the tables' sequences).
    const db = suite.server.dataSource;
    const added = await patchAdmin(suite.server, [
      {
        op: 'add',
        path: '/uma-client',
        value: { type: 'uma-client', attributes: { clientId: 'bulk-even', clientName: 'Even', allowedScopes: 'blood-glucose-level:read' } },
      },
      {
        op: 'add',
        path: '/uma-client',
        value: { type: 'uma-client', attributes: { clientId: 'bulk-odd', clientName: 'Odd', allowedScopes: 'blood-glucose-level:read' } },
      },
      { op: 'add', path: '/purpose', value: { type: 'purpose', attributes: { name: 'Bulk purpose' } } },
    ]).expect(200);
    const [even, odd, purpose] = bodyOf<PatchResults>(added).map((result) => Number(result.data!.id));
    const rows: { definition: number; scope: number }[] = await db.query(
      `SELECT d.id AS definition, s.id AS scope FROM resource_definition d JOIN scope s ON s.resource_definition_id = d.id WHERE d.name = 'blood-glucose-level'`,
    );
    const [{ definition: definitionId, scope }] = rows;
    await db.query(
      `WITH t AS (
         INSERT INTO capability_ticket (ticket_id, ticket_name, purpose_id, client_id)
         SELECT 'B-' || g, 'Bulk ' || g, $2::int, CASE WHEN g % 2 = 0 THEN $3::int ELSE $4::int END FROM generate_series(1, $1) g ORDER BY g RETURNING id, ticket_id),
       r AS (
         INSERT INTO requested_resource (max_permission_duration, requested_resource_id, resource_definition_id, client_id)
         SELECT 600, 'bulk-resource-' || g, $5::int, CASE WHEN g % 2 = 0 THEN $3::int ELSE $4::int END FROM generate_series(1, $1) g ORDER BY g RETURNING id, requested_resource_id),
       s AS (INSERT INTO requested_resource_scopes (scope_id, purpose_id, requested_resource_id) SELECT $6::int, $2::int, r.id FROM r RETURNING id)
       INSERT INTO requested_resources_capability_tickets (capability_ticket_id, requested_resource_id)
       SELECT t.id, r.id FROM t JOIN r ON substr(t.ticket_id, 3) = substr(r.requested_resource_id, 15)`,
      [COUNT, purpose, even, odd, definitionId, scope],
    );
  });

  it('opens on the newest tickets of all clients, pages on the server, and never asks for more than 100 records', async () => {
    takeRequestedUrls();
    const { context, page } = await suite.signedInTab('Consent tickets');
    const list = page.getByRole('list', { name: 'Tickets of all clients' });
    await expectPage(list.getByRole('listitem').first()).toContainText(`ticket B-${COUNT}`);
    await expectPage(list.getByRole('listitem').first()).toContainText('bulk-even may read blood-glucose-level');
    await expectPage(list.getByRole('listitem')).toHaveCount(20);
    await expectPage(page.getByText(`1–20 of ${COUNT} tickets`)).toBeVisible();
    await page.getByRole('navigation', { name: 'Ticket pages' }).getByRole('button', { name: 'Next page' }).click();
    await expectPage(list.getByRole('listitem').first()).toContainText(`ticket B-${COUNT - 20}`);
    await expectPage(page.getByText(`21–40 of ${COUNT} tickets`)).toBeVisible();
    for (const url of takeRequestedUrls()) {
      const size = new URL(url).searchParams.get('page[size]');
      if (new URL(url).pathname.startsWith('/admin/')) expect(Number(size ?? 20)).toBeLessThanOrEqual(100);
    }
    await context.close();
  });

  it('narrows to one client with the Client filter, and finds a ticket by its ticket ID', async () => {
    const { context, page } = await suite.signedInTab('Consent tickets');
    const filters = page.getByRole('search', { name: 'Ticket filters' });
    await filters.getByRole('textbox', { name: 'Client' }).fill('bulk-odd');
    await filters.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.getByRole('heading', { name: 'Tickets of bulk-odd' })).toBeVisible();
    const list = page.getByRole('list', { name: 'Tickets of bulk-odd' });
    await expectPage(list.getByRole('listitem').first()).toContainText(`ticket B-${COUNT - 1}`);
    await expectPage(page.getByText(`1–20 of ${COUNT / 2} tickets`)).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search tickets' }).fill('B-1777');
    await expectPage(list.getByRole('listitem')).toHaveCount(1);
    await expectPage(list.getByRole('listitem')).toContainText('ticket B-1777');
    await expectPage(list.getByRole('listitem')).toContainText('no active tokens');

    await filters.getByRole('textbox', { name: 'Client' }).fill('nobody-has-this-id');
    await filters.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.getByText('No client has the client ID “nobody-has-this-id”.')).toBeVisible();
    await filters.getByRole('button', { name: 'All clients' }).click();
    await expectPage(page.getByRole('heading', { name: 'Newest tickets of all clients' })).toBeVisible();
    await context.close();
  });
});

describe('the layout', () => {
  it('keeps the menu on one line at 1280 px', async () => {
    const { context, page } = await suite.signedInTab(undefined, DESKTOP);
    const tops = await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link')
      .evaluateAll((links: unknown[]) => (links as PageElement[]).map((link) => Math.round(link.getBoundingClientRect().top)));
    expect(tops).toHaveLength(10);
    expect(new Set(tops).size).toBe(1);
    // Nothing overlaps: the last section ends before "Sign out" begins, and nothing is wider than the window.
    const last = await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Disclosures' }).boundingBox();
    const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
    expect(last!.x + last!.width).toBeLessThanOrEqual(signOut!.x);
    expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(DESKTOP.width);
    await context.close();
  });

  it('never breaks a client ID, a scope or a grant type inside the word', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    const lines = (locator: ReturnType<Page['locator']>) => locator.evaluate((element: unknown) => (element as PageElement).getClientRects().length);
    expect(await lines(page.getByRole('rowheader', { name: 'glucose-app' }).locator('code'))).toBe(1);
    // Nor a scope or a grant type: the lines break between them.
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'glucose-app' }) });
    expect(await lines(row.getByText('blood-glucose-level:read', { exact: true }))).toBe(1);
    expect(await lines(row.getByText('urn:ietf:params:oauth:grant-type:uma-ticket', { exact: true }))).toBe(1);
    await context.close();
  });

  it('lets the clients table scroll sideways on a phone instead of cutting it off', async () => {
    const { context, page } = await suite.signedInTab('Clients', PHONE);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const frame = page.locator('.table-wrap').first();
    const { scrollWidth, clientWidth, overflow } = await frame.evaluate((element: unknown) => ({
      scrollWidth: (element as PageElement).scrollWidth,
      clientWidth: (element as PageElement).clientWidth,
      overflow: getComputedStyle(element).overflowX,
    }));
    expect(overflow).toBe('auto');
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    await screenshot(page, 'phone');
    // The last column (the actions) is reached by scrolling, and works.
    const remove = page.getByRole('button', { name: 'Remove picker-plain' });
    await remove.scrollIntoViewIfNeeded();
    const box = await remove.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });

  it('makes every Remove a button, never a link', async () => {
    const { context, page } = await suite.signedInTab();
    for (const screen of ['Resource definitions', 'Data sources', 'Clients', 'Consent tickets']) {
      await openScreen(page, screen);
      await page
        .getByRole('button', { name: /^Remove/ })
        .first()
        .waitFor();
      expect(await page.getByRole('link', { name: /remove/i }).count()).toBe(0);
      const styles = await page
        .getByRole('button', { name: /^Remove/ })
        .evaluateAll((buttons: unknown[]) => [...new Set((buttons as PageElement[]).map((button) => `${button.className}|${button.textContent ?? ''}`))]);
      expect(styles).toEqual(['danger|Remove']);
    }
    await context.close();
  });
});
