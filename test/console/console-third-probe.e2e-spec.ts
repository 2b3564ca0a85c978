import type { Locator, Request } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { add, patchAdmin, ref } from '../support/admin.js';
import { browserSuite, DESKTOP } from '../support/browser.js';
import { freshDatabase } from '../support/test-app.js';

/**
 * A newcomer's findings in the console (issue 36, item 8): the layout at 1280 px, the client
 * form's methods on a server without mutual TLS, the introspection client made in place, the
 * server's refusals in words, and the authorization server's step of the seed's walk.
 */
const suite = browserSuite(async () => ({ DATABASE_URL: await freshDatabase('console_third_probe') }));

beforeAll(async () => {
  await patchAdmin(suite.server, [
    add('resource-definition', { id: 1, attributes: { name: 'blood-glucose-level', description: 'Blood glucose' } }),
    add('resource-definition', { id: 2, attributes: { name: 'body-weight', description: 'Body weight' } }),
    add('resource-definition', { id: 3, attributes: { name: 'heart-rate', description: 'Heart rate' } }),
    add('uma-client', { id: 1, attributes: { clientId: 'glucose-api', clientName: 'Glucose API', allowedScopes: 'uma_protection' } }),
    add('data-source', {
      id: 1,
      attributes: { name: 'Glucose API', kind: 'resource-server', resourceUri: 'https://glucose.example/api/fhir/r4' },
      relationships: { umaClient: ref('uma-client', 1) },
    }),
    ...[1, 2, 3].map((definition) =>
      add('data-source-resource-definitions', {
        attributes: {},
        relationships: { dataSource: ref('data-source', 1), resourceDefinition: ref('resource-definition', definition) },
      }),
    ),
  ]).expect(200);
});

/** Whether the second box sits on the first one's line: its middle is level with the first. */
async function onTheLineOf(first: Locator, second: Locator) {
  const [a, b] = [(await first.boundingBox())!, (await second.boundingBox())!];
  const middle = b.y + b.height / 2;
  return middle > a.y && middle < a.y + a.height;
}

describe('at 1280 px', () => {
  it("shows the data sources table's Remove button whole, without scrolling", async () => {
    const { context, page } = await suite.signedInTab('Data sources', DESKTOP);
    const remove = page.getByRole('button', { name: 'Remove data source Glucose API' });
    await remove.waitFor();
    const box = (await remove.boundingBox())!;
    const frame = (await page.locator('.table-wrap').first().boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width);
    expect(box.x + box.width).toBeLessThanOrEqual(DESKTOP.width);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(DESKTOP.width);
    await context.close();
  });

  it('keeps the tickets filter\'s "Show" button on the line of its Client field', async () => {
    const { context, page } = await suite.signedInTab('Consent tickets', DESKTOP);
    const filters = page.getByRole('search', { name: 'Ticket filters' });
    const field = filters.getByRole('textbox', { name: 'Client' });
    const show = filters.getByRole('button', { name: 'Show' });
    expect(await onTheLineOf(field, show)).toBe(true);
    const [fieldBox, showBox] = [(await field.boundingBox())!, (await show.boundingBox())!];
    expect(showBox.x).toBeGreaterThanOrEqual(fieldBox.x + fieldBox.width);
    await context.close();
  });
});

describe('the client form', () => {
  it('offers no mutual-TLS authentication method on a server without mutual TLS', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    const methods = page.getByLabel('Authentication method').locator('option');
    await expectPage(methods).toHaveCount(3);
    const values = await methods.evaluateAll((options: unknown[]) => options.map((option) => (option as { value: string }).value));
    expect(values).toEqual(['client_secret_basic', 'client_secret_post', 'private_key_jwt']);
    await context.close();
  });

  it('says a taken client ID in words, beside the field', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    await page.getByLabel('Client ID').fill('glucose-api');
    await page.getByLabel('Client name').fill('A second glucose API');
    await page.getByLabel('Allowed scopes').fill('uma_protection');
    await page.getByRole('button', { name: 'Enrol client' }).click();
    const field = page.getByLabel('Client ID');
    await expectPage(field).toHaveAttribute('aria-invalid', 'true');
    await expectPage(field).toHaveAccessibleDescription(/Another client already uses the client ID “glucose-api”\./);
    await expectPage(page.getByRole('alert')).toContainText('Another client already uses the client ID “glucose-api”.');
    await expectPage(page.getByRole('alert')).not.toContainText('uma-client');
    await context.close();
  });
});

describe('the data-source form', () => {
  it('asks no redirect URI of the introspection client it enrols in place, and sends none', async () => {
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByRole('button', { name: 'Enrol a new introspection client' }).click();
    const group = page.getByRole('group', { name: 'New introspection client' });
    await expectPage(group.getByLabel('New client ID')).toBeVisible();
    await expectPage(group.getByRole('textbox')).toHaveCount(2);
    await expectPage(page.getByLabel(/redirect/i)).toHaveCount(0);
    await page.getByLabel('Data source name').fill('Weight API');
    await page.getByLabel('Resource URI').fill('https://weight.example/api');
    await group.getByLabel('New client ID').fill('weight-api');
    await group.getByLabel('New client name').fill('Weight API');
    const sent = page.waitForRequest((request: Request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Enrol data source' }).click();
    expect((await sent).postData()).not.toContain('redirectUris');
    await expectPage(page.getByRole('status')).toContainText('Data source Weight API enrolled with its introspection client weight-api.');
    await context.close();
  });
});

describe("the seed's first step", () => {
  it('says why there is no authorization server to enrol', async () => {
    const { context, page } = await suite.signedInTab('Authorization server');
    await expectPage(page.locator('main')).toContainText(
      'Nothing to enrol here: this console administers the authorization server it runs on, which is set up already; its issuer, endpoints and keys are below.',
    );
    await context.close();
  });
});
