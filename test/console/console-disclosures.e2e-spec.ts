import { readFile } from 'node:fs/promises';
import request from 'supertest';
import { expect as expectPage } from '../support/page-expect.js';
import { rowCounts } from '../support/admin.js';
import { browserSuite, openScreen } from '../support/browser.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { bodyOf, accessTokenClaims, type IntrospectionBody, type JsonApiDocument, type JsonApiResource, type TokenBody } from '../support/bodies.js';
import { clockTime } from '../../console/src/disclosures/disclosure-sentence.js';

/** The console's Disclosures screen and the tickets screen's active tokens, in a real Chromium. */
// No request leaves the admin listener, and the admin token is never in a URL (the CSV included).
const suite = browserSuite();

async function token(grant: ConsentGrant): Promise<string> {
  const response = await request(suite.server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` })
    .expect(200);
  return bodyOf<TokenBody>(response).access_token;
}

async function active(grant: ConsentGrant, accessToken: string): Promise<boolean> {
  const response = await request(suite.server.url)
    .post('/oauth2/introspect')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send({ token: accessToken })
    .expect(200);
  return bodyOf<IntrospectionBody>(response).active;
}

/** A withdrawn disclosure record, as far as the test reads it. */
type WithdrawnDisclosure = JsonApiResource & { attributes: { withdrawnAt: string; withdrawnBy: string } };

// The console's own clock rule: the time alone today, with the date on another day (an expiry past midnight).
const hhmm = (date: Date) => clockTime(date.toISOString(), new Date());

describe('the Disclosures screen', () => {
  it('reads each disclosure as a sentence, filters by client, ticket and activity, and downloads the CSV with the admin token', async () => {
    const grant = await consentWorld(suite.server, { maxPermissionDuration: 1800 });
    const issued = accessTokenClaims(await token(grant));
    const other = await consentWorld(suite.server);
    await token(other);
    const { context, page } = await suite.signedInTab('Disclosures');
    await page.getByLabel('Client').fill(grant.clientId);
    await page.getByRole('button', { name: 'Show' }).click();
    const sentence = `${grant.clientId} was given ${grant.definitionName}:read for 'Your doctor follows your glucose' at ${hhmm(new Date(issued.iat * 1000))}, until ${hhmm(new Date(issued.exp * 1000))}, under ticket ${grant.ticketId}`;
    await expectPage(page.locator('ul.sentences li')).toHaveCount(1);
    await expectPage(page.locator('ul.sentences li .sentence')).toContainText(sentence);

    await page.getByLabel('Client').fill('');
    await page.getByLabel('Ticket').fill(String(grant.ids.ticket));
    await page.getByLabel('Active only').check();
    await page.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.locator('ul.sentences li .sentence')).toContainText(`under ticket ${grant.ticketId}`);
    await expectPage(page.locator('ul.sentences li')).toHaveCount(1);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toMatch(/^id,jti,clientId,/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(issued.jti);
    await context.close();
  });
});

describe('the tickets screen and withdrawal', () => {
  it('counts the active tokens of a ticket, asks before a removal that withdraws them, and Cancel changes nothing', async () => {
    const grant = await consentWorld(suite.server);
    const first = await token(grant);
    await token(grant);
    const { context, page } = await suite.signedInTab('Consent tickets');
    // The tickets screen opens on every client's newest tickets; the Client filter narrows it to one.
    const filters = page.getByRole('search', { name: 'Ticket filters' });
    await filters.getByRole('textbox', { name: 'Client' }).fill(grant.clientId);
    await filters.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.getByRole('heading', { name: `Tickets of ${grant.clientId}` })).toBeVisible();
    const remove = page.getByRole('button', { name: `Remove ticket ${grant.ticketId}` });
    const entry = page.locator('ul.sentences li', { has: remove });
    await expectPage(entry).toContainText('2 active tokens');

    await remove.click();
    const dialog = page.getByRole('alertdialog');
    await expectPage(dialog).toContainText(`Removing ticket ${grant.ticketId} withdraws 2 active tokens`);
    await expectPage(dialog.getByRole('button', { name: 'Remove and withdraw' })).toBeFocused();
    const counts = await rowCounts(suite.server);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectPage(page.getByRole('alertdialog')).toHaveCount(0);
    expect(await rowCounts(suite.server)).toEqual(counts);
    expect(await active(grant, first)).toBe(true);

    await remove.click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove and withdraw' }).click();
    await expectPage(remove).toHaveCount(0);
    expect(await active(grant, first)).toBe(false);

    await openScreen(page, 'Disclosures');
    await page.getByLabel('Client').fill(grant.clientId);
    await page.getByRole('button', { name: 'Show' }).click();
    await expectPage(page.locator('ul.sentences li')).toHaveCount(2);
    const listed = await request(suite.server.adminUrl).get(`/admin/disclosure?filter[client]=${grant.clientId}`).set('Authorization', suite.server.adminToken);
    const [row] = bodyOf<JsonApiDocument<WithdrawnDisclosure[]>>(listed).data;
    await expectPage(page.locator('ul.sentences li .sentence').first()).toContainText(
      `, withdrawn at ${hhmm(new Date(row.attributes.withdrawnAt))} by change ${row.attributes.withdrawnBy}`,
    );
    await context.close();
  });
});
