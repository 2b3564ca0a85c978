/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   RFC 7591 answers are read member by member here (supertest types every body as any). */
import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { browserSuite, screenshot } from '../support/browser.js';
import { getAdmin } from '../support/admin.js';

/** The console's Initial access tokens screen (docs/guides/dynamic-registration.md) in a real Chromium. */
const suite = browserSuite();

const SCREEN = 'Initial access tokens';

function register(token: string, body: Record<string, unknown> = {}) {
  return request(suite.server.url)
    .post('/oauth2/register')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${token}`)
    .send(JSON.stringify({ client_name: 'Console-issued gateway', ...body }));
}

async function tokenRows(name: string): Promise<{ id: number; token_hash: string; max_uses: number; uses: number; scope_ceiling: string }[]> {
  return suite.server.dataSource.query('SELECT id, token_hash, max_uses, uses, scope_ceiling FROM initial_access_token WHERE name = $1', [name]);
}

/** Issues a token with the form and answers the value the panel shows once. */
async function issue(page: Page, name: string, scopes: string, maxUses = ''): Promise<string> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Scope ceiling').fill(scopes);
  if (maxUses) await page.getByLabel('Maximum uses (optional)').fill(maxUses);
  await page.getByRole('button', { name: 'Issue initial access token' }).click();
  const value = page.getByLabel('Initial access token', { exact: true });
  await expectPage(value).toBeVisible();
  return value.inputValue();
}

const rowOf = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

describe('the Initial access tokens screen', () => {
  it('issues a token shown once, stores only its hash, and a client registers with it', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `Ward 4 gateways ${randomBytes(3).toString('hex')}`;
    const token = await issue(page, name, 'gateway-status', '5');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expectPage(page.getByRole('heading', { name: `Initial access token “${name}”` })).toBeFocused();
    await expectPage(page.getByRole('status').first()).toContainText(`Initial access token “${name}” issued.`);

    const [row] = await tokenRows(name);
    expect(row).toMatchObject({ max_uses: 5, uses: 0, scope_ceiling: 'gateway-status', token_hash: createHash('sha256').update(token).digest('base64url') });
    await expectPage(rowOf(page, name)).toContainText('0 of 5');
    await screenshot(page, 'initial-access-tokens');

    const registered = await register(token);
    expect(registered.status).toBe(201);
    expect(registered.body.scope).toBe('gateway-status');

    await page.getByRole('button', { name: 'Done' }).click();
    await expectPage(page.getByLabel('Initial access token', { exact: true })).toHaveCount(0);
    expect(await page.content()).not.toContain(token);
    await page.getByLabel('Search initial access tokens').fill(name);
    await expectPage(rowOf(page, name)).toContainText('1 of 5');
    await context.close();
  });

  it("shows a refused token beside the field the server's error names, and stores nothing", async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `Refused ${randomBytes(3).toString('hex')}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Scope ceiling').fill('read');
    await page.getByLabel('Maximum uses (optional)').fill('100001');
    await page.getByRole('button', { name: 'Issue initial access token' }).click();
    const field = page.getByLabel('Maximum uses (optional)');
    await expectPage(field).toHaveAttribute('aria-invalid', 'true');
    await expectPage(field).toHaveAccessibleDescription(/maxUses must be a whole number from 1 to 100000/);
    await expectPage(page.getByRole('alert')).toContainText('The change was refused: nothing was saved');
    await expectPage(page.getByLabel('Initial access token', { exact: true })).toHaveCount(0);
    expect(await tokenRows(name)).toEqual([]);
    await context.close();
  });

  it('refuses an expiry that is not whole hours before sending anything', async () => {
    const { context, page, requests } = await suite.signedInTab(SCREEN);
    await page.getByLabel('Name', { exact: true }).fill('Never sent');
    await page.getByLabel('Scope ceiling').fill('read');
    await page.getByLabel('Expires after (hours from now, optional)').fill('soon');
    const before = requests.length;
    await page.getByRole('button', { name: 'Issue initial access token' }).click();
    await expectPage(page.getByLabel('Expires after (hours from now, optional)')).toHaveAccessibleDescription(/whole number of hours/);
    expect(requests.slice(before).filter((sent) => sent.method() === 'PATCH')).toEqual([]);
    expect(await tokenRows('Never sent')).toEqual([]);
    await context.close();
  });

  it('edits the name, maximum uses and expiry of a token', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `To edit ${randomBytes(3).toString('hex')}`;
    await issue(page, name, 'read');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Edit initial access token ${name}` }).click();
    await page.getByLabel('Name', { exact: true }).fill(`${name} renamed`);
    await page.getByLabel('Maximum uses', { exact: true }).fill('20');
    await page.getByLabel('Expires after (hours from now, optional)').fill('48');
    await page.getByRole('button', { name: 'Save initial access token' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Initial access token “${name} renamed” saved.`);
    await expectPage(rowOf(page, `${name} renamed`)).toContainText('0 of 20');
    await expectPage(rowOf(page, `${name} renamed`)).toHaveAttribute('aria-current', 'true');
    const [row] = await suite.server.dataSource.query<{ expires_at: Date }[]>('SELECT expires_at FROM initial_access_token WHERE name = $1', [
      `${name} renamed`,
    ]);
    const hoursAhead = (new Date(row.expires_at).getTime() - Date.now()) / 3_600_000;
    expect(hoursAhead).toBeGreaterThan(47);
    expect(hoursAhead).toBeLessThanOrEqual(48);
    await context.close();
  });

  it('removes a token: it registers nothing more, and the client it registered stays', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `To remove ${randomBytes(3).toString('hex')}`;
    const token = await issue(page, name, 'read', '3');
    await page.getByRole('button', { name: 'Done' }).click();
    const registered = await register(token);
    expect(registered.status).toBe(201);

    await page.getByRole('button', { name: `Remove initial access token ${name}` }).click();
    await expectPage(page.getByRole('status')).toContainText(`Initial access token “${name}” removed`);
    await expectPage(rowOf(page, name)).toHaveCount(0);
    expect(await tokenRows(name)).toEqual([]);
    expect((await register(token)).status).toBe(401);
    const client = await getAdmin(suite.server, `/admin/uma-client?filter[clientId]=${registered.body.client_id}`);
    expect(client.body.data).toHaveLength(1);
    await context.close();
  });

  it('marks a dynamically registered client on the Clients screen, and freezes its registration from the edit form', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const token = await issue(page, `Freeze ${randomBytes(3).toString('hex')}`, 'read');
    const registered = await register(token);
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id as string;
    const management = () =>
      request(suite.server.url).get(`/oauth2/register/${clientId}`).set('Authorization', `Bearer ${registered.body.registration_access_token}`);

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByLabel('Search clients').fill(clientId);
    await expectPage(rowOf(page, clientId)).toContainText('registered dynamically');
    await page.getByRole('button', { name: `Edit ${clientId}` }).click();
    const checkbox = page.getByLabel('The client may update or delete its own registration');
    await expectPage(checkbox).toBeChecked();
    await checkbox.uncheck();
    await page.getByRole('button', { name: 'Save client' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} saved.`);

    expect((await management()).status).toBe(200);
    const frozen = await request(suite.server.url)
      .delete(`/oauth2/register/${clientId}`)
      .set('Authorization', `Bearer ${registered.body.registration_access_token}`);
    expect(frozen.status).toBe(403);
    expect(frozen.body.error).toBe('access_denied');
    await context.close();
  });
});
