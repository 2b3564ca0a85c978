import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect as expectPage } from '../support/page-expect.js';
import { browserSuite, PHONE, screenshot } from '../support/browser.js';
import { createClient } from '../support/factories.js';
import { selfSignedCertificate } from '../support/udap-anchors.js';

/** The console's Trust communities screen (docs/reference/trust-communities.md) in a real Chromium. */
const suite = browserSuite();

const SCREEN = 'Trust communities';
const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';

type CommunityRow = {
  id: number;
  name: string;
  anchors: string[];
  scope_ceiling: string;
  purposes_of_use: string[];
  revocation_check: string;
  enabled: boolean;
};

async function communityRows(name: string): Promise<CommunityRow[]> {
  return suite.server.dataSource.query(
    'SELECT id, name, anchors, scope_ceiling, purposes_of_use, revocation_check, enabled FROM trust_community WHERE name = $1',
    [name],
  );
}

// A community's row header holds its name and its enabled or disabled tag; a client's its client ID.
const rowOf = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });

const cells = (page: Page, name: string) => rowOf(page, name).locator('th, td');

const pemFile = (name: string, text: string) => ({ name, mimeType: 'application/x-pem-file', buffer: Buffer.from(text) });

/** Fills the add form with one uploaded anchor file and adds the community. */
async function addCommunity(page: Page, name: string, anchorFile: { name: string; mimeType: string; buffer: Buffer }) {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Community URI').fill(`https://${name.replace(/\W+/g, '-').toLowerCase()}.example/udap`);
  await page.getByLabel('Anchor files').setInputFiles(anchorFile);
  await page.getByLabel('Scope ceiling').fill('system/Patient.rs system/Observation.rs');
  await page.getByRole('button', { name: 'Add trust community' }).click();
}

describe('the Trust communities screen', () => {
  it('adds a community whose anchors come from an uploaded file holding two CA certificates, and lists it', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `Community ${randomBytes(3).toString('hex')}`;
    const bundle = `${await selfSignedCertificate('CN=Community CA 1', true)}${await selfSignedCertificate('CN=Community CA 2', true)}`;
    await addCommunity(page, name, pemFile('community-cas.pem', bundle));
    await expectPage(page.getByRole('status')).toContainText(`Trust community “${name}” added.`);

    const [row] = await communityRows(name);
    expect(row.anchors).toHaveLength(2);
    expect(row.anchors.every((anchor) => anchor.startsWith('-----BEGIN CERTIFICATE-----'))).toBe(true);
    const listed = rowOf(page, name);
    await expectPage(listed).toHaveAttribute('aria-current', 'true');
    await expectPage(cells(page, name)).toHaveText([
      `${name} enabled`,
      `https://${name.replace(/\W+/g, '-').toLowerCase()}.example/udap`,
      '2',
      'system/Patient.rs system/Observation.rs',
      'any',
      'require',
      '3600 s',
      '0',
      'EditDisableClientsRemove',
    ]);
    // Its actions fit at 1280 px, without scrolling the table.
    const remove = (await page.getByRole('button', { name: `Remove trust community ${name}` }).boundingBox())!;
    const frame = (await page.locator('.table-wrap').first().boundingBox())!;
    expect(remove.x + remove.width).toBeLessThanOrEqual(frame.x + frame.width);
    await screenshot(page, 'trust-communities');
    await context.close();
  });

  it('shows a refused anchor (not a CA) beside the file field, named by its file, and stores nothing', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `Refused ${randomBytes(3).toString('hex')}`;
    await addCommunity(page, name, pemFile('leaf.pem', await selfSignedCertificate('CN=Not a CA', false)));
    const field = page.getByLabel('Anchor files');
    await expectPage(field).toHaveAttribute('aria-invalid', 'true');
    await expectPage(field).toHaveAccessibleDescription(/The anchor from leaf\.pem is not a CA certificate/);
    await expectPage(page.getByRole('alert')).toContainText('The change was refused: nothing was saved');
    expect(await communityRows(name)).toEqual([]);
    await context.close();
  });

  it('refuses a file without a PEM certificate before sending anything', async () => {
    const { context, page, requests } = await suite.signedInTab(SCREEN);
    const name = `Never sent ${randomBytes(3).toString('hex')}`;
    const before = requests.length;
    await addCommunity(page, name, { name: 'ca.der', mimeType: 'application/octet-stream', buffer: Buffer.from([0x30, 0x82, 0x01, 0x0a]) });
    await expectPage(page.getByLabel('Anchor files')).toHaveAccessibleDescription(/The file ca\.der holds no PEM certificate/);
    expect(requests.slice(before).filter((sent) => sent.method() === 'PATCH')).toEqual([]);
    expect(await communityRows(name)).toEqual([]);
    await context.close();
  });

  it('edits a community, keeping its anchors when no new file is given, then disables and enables it', async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `To edit ${randomBytes(3).toString('hex')}`;
    await addCommunity(page, name, pemFile('ca.pem', await selfSignedCertificate('CN=Edit CA', true)));
    await expectPage(page.getByRole('status')).toContainText('added');
    const [added] = await communityRows(name);

    await page.getByRole('button', { name: `Edit trust community ${name}` }).click();
    await expectPage(page.getByLabel('New anchor files (optional)')).toHaveAccessibleDescription(/The community has 1 anchor\./);
    await page.getByLabel('Name', { exact: true }).fill(`${name} renamed`);
    await page.getByLabel('Purposes of use (optional)').fill(TREAT);
    await page.getByLabel('Revocation check').selectOption('off');
    await page.getByLabel('Access token lifetime (seconds)').fill('300');
    await page.getByRole('button', { name: 'Save trust community' }).click();
    await expectPage(page.getByRole('status')).toContainText(`Trust community “${name} renamed” saved.`);
    const [edited] = await communityRows(`${name} renamed`);
    expect(edited).toMatchObject({ id: added.id, anchors: added.anchors, purposes_of_use: [TREAT], revocation_check: 'off' });
    await expectPage(rowOf(page, `${name} renamed`)).toContainText('300 s');
    await expectPage(rowOf(page, `${name} renamed`)).toContainText(TREAT);

    await page.getByRole('button', { name: `Disable trust community ${name} renamed` }).click();
    await expectPage(page.getByRole('status')).toContainText('disabled: its members can neither register nor obtain tokens');
    await expectPage(rowOf(page, `${name} renamed`)).toContainText('disabled');
    expect((await communityRows(`${name} renamed`))[0].enabled).toBe(false);
    await page.getByRole('button', { name: `Enable trust community ${name} renamed` }).click();
    await expectPage(page.getByRole('status')).toContainText(`Trust community “${name} renamed” enabled`);
    expect((await communityRows(`${name} renamed`))[0].enabled).toBe(true);

    // The audit trail words the changes (a record by its name now): the status, and anchors counted, never printed.
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Audit trail' }).click();
    await expectPage(page.getByRole('main')).toContainText(`changed trust community ${name} renamed: status from disabled to enabled`);
    await expectPage(page.getByRole('main')).toContainText(`added trust community ${name} renamed at https://`);
    expect(await page.getByRole('main').textContent()).not.toContain('BEGIN CERTIFICATE');
    await context.close();
  });

  it("lists a community's clients, marks them on the Clients screen, refuses its removal while they remain, and removes it once empty", async () => {
    const { context, page } = await suite.signedInTab(SCREEN);
    const name = `Members ${randomBytes(3).toString('hex')}`;
    await addCommunity(page, name, pemFile('ca.pem', await selfSignedCertificate('CN=Members CA', true)));
    await expectPage(page.getByRole('status')).toContainText('added');
    const [community] = await communityRows(name);
    const { clientId } = await createClient(suite.server.app, { clientName: 'Hospital B gateway', allowedScopes: 'system/Patient.rs' });
    const issuer = `https://hospital-b.example/${randomBytes(3).toString('hex')}`;
    await suite.server.dataSource.query(
      "UPDATE client SET trust_community_id = $1, udap_issuer = $2, organization = $3, registered_via = 'udap' WHERE client_id = $4",
      [community.id, issuer, 'CN=Hospital B,O=Hospital B', clientId],
    );
    await page.getByLabel('Search trust communities').fill(name);
    await expectPage(cells(page, name).nth(7)).toContainText('1');

    await page.getByRole('button', { name: `Clients of trust community ${name}` }).click();
    await expectPage(page.getByRole('heading', { name: `Clients of trust community “${name}”` })).toBeFocused();
    await expectPage(cells(page, clientId)).toHaveText([clientId, 'Hospital B gateway', 'CN=Hospital B,O=Hospital B', issuer]);

    await page.getByRole('button', { name: `Remove trust community ${name}` }).click();
    await expectPage(page.getByRole('alert')).toContainText(
      'This trust community still has a client: remove it first, or disable the community, which stops it at once.',
    );
    expect(await communityRows(name)).toHaveLength(1);

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByLabel('Search clients').fill(clientId);
    await expectPage(rowOf(page, clientId)).toContainText(`UDAP of trust community “${name}”, organization CN=Hospital B,O=Hospital B`);
    await page.getByRole('button', { name: `Remove ${clientId}` }).click();
    await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} removed.`);

    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: SCREEN }).click();
    await page.getByLabel('Search trust communities').fill(name);
    await page.getByRole('button', { name: `Remove trust community ${name}` }).click();
    await expectPage(page.getByRole('status')).toContainText(`Trust community “${name}” removed.`);
    expect(await communityRows(name)).toEqual([]);
    await context.close();
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    const { context, page } = await suite.signedInTab(SCREEN, PHONE);
    await page.getByRole('button', { name: 'Add trust community' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });
});
