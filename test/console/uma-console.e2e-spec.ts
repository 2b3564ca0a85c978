import { randomBytes } from 'node:crypto';
import { expect as expectPage } from '../support/page-expect.js';
import { browserSuite, screenshot } from '../support/browser.js';
import { UMA_GRANT, registerResource, registeredResource, umaWorld } from '../support/uma.js';

/** The console's UMA parts (docs/guides/uma.md) in a real Chromium: the grant on the client form, a data source's registered resources. */
const suite = browserSuite();

describe('UMA in the console', () => {
  it('enrols a client for the UMA grant from the client form, and edits it away again', async () => {
    const { context, page } = await suite.signedInTab('Clients');
    const clientId = `uma-app-${randomBytes(4).toString('hex')}`;
    await page.getByLabel('Client ID').fill(clientId);
    await page.getByLabel('Client name').fill('UMA app');
    await page.getByLabel('Allowed scopes').fill('read');
    await page
      .getByRole('group', { name: 'Grant types' })
      .getByLabel(/UMA grant/)
      .check();
    await page.getByRole('button', { name: 'Enrol client' }).click();
    await expectPage(page.getByLabel('Client secret')).toBeVisible();
    // The list is paged; other suites' clients may come first, so find this one by searching.
    await page.getByLabel('Search clients').fill(clientId);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: clientId }) });
    await expectPage(row).toContainText(UMA_GRANT);
    const enrolled = await suite.server.dataSource.query<{ grant_types: string }[]>(
      'SELECT m.grant_types FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1',
      [clientId],
    );
    expect(enrolled[0].grant_types).toBe(`client_credentials ${UMA_GRANT}`);

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Edit ${clientId}` }).click();
    await page
      .getByRole('group', { name: 'Grant types' })
      .getByLabel(/UMA grant/)
      .uncheck();
    await page.getByRole('button', { name: 'Save client' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} saved.`);
    await expectPage(row).not.toContainText(UMA_GRANT);
    await context.close();
  });

  it("shows the UMA resources a data source's client registered", async () => {
    const world = await umaWorld(suite.server);
    const glucose = await registeredResource(suite.server, world);
    await registerResource(suite.server, world.pat, { type: world.definitionName, resource_scopes: ['write'] }).expect(201);
    const name = `Data source ${world.dataSource.id}`;
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByLabel('Search data sources').fill(name);
    await page.getByRole('button', { name: `UMA resources of ${name}` }).click();
    const table = page.getByRole('table', { name: `UMA resources registered by ${name} (2)` });
    await expectPage(table).toBeVisible();
    const first = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Glucose readings' }) });
    await expectPage(first).toContainText(glucose);
    await expectPage(first).toContainText(world.definitionName);
    await expectPage(first).toContainText('read, write');
    await expectPage(table.getByRole('rowheader', { name: '(no name)' })).toBeVisible();
    await screenshot(page, 'uma-resources');
    await page.getByRole('button', { name: 'Close UMA resources' }).click();
    await expectPage(table).toHaveCount(0);
    await context.close();
  });

  it("says so when a data source's client registered nothing", async () => {
    const world = await umaWorld(suite.server);
    const name = `Data source ${world.dataSource.id}`;
    const { context, page } = await suite.signedInTab('Data sources');
    await page.getByLabel('Search data sources').fill(name);
    await page.getByRole('button', { name: `UMA resources of ${name}` }).click();
    await expectPage(page.getByText(`${name} has registered no UMA resource.`)).toBeVisible();
    await context.close();
  });
});
