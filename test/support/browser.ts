import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { launchChromium } from './chromium-binary.mjs';
import { startTestApp, type TestApp } from './test-app.js';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

// Headless Chromium: the one npm delivers, or CHROMIUM_PATH's (test/support/chromium-binary.mjs).
export { launchChromium };

const seen: string[] = [];

/** Every URL any tab requested since the last call (each test checks where its tabs went). */
export function takeRequestedUrls(): string[] {
  return seen.splice(0, seen.length);
}

/** No tab's request left the admin listener, and none carried the admin token in its URL (an afterEach of every browser suite). */
export function expectRequestsStayedOnAdmin(server: { adminUrl: string; adminToken: string }): void {
  for (const url of takeRequestedUrls()) {
    expect(new URL(url).origin).toBe(server.adminUrl);
    expect(url).not.toContain(server.adminToken);
  }
}

/** A browser tab and the requests it made. */
export type Tab = { context: BrowserContext; page: Page; requests: Request[] };

/** A fresh tab (own storage) that records every request it makes. */
export async function openTab(browser: Browser, viewport = DESKTOP): Promise<Tab> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on('request', (request) => {
    requests.push(request);
    seen.push(request.url());
  });
  return { context, page, requests };
}

/** Opens the console and signs in the way an administrator does. */
export async function signIn(page: Page, adminUrl: string, token: string): Promise<void> {
  await page.goto(`${adminUrl}/console`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export async function openScreen(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** What a browser suite shares: the real server on the test database, one Chromium, and signed-in tabs. */
export type BrowserSuite = {
  readonly server: TestApp;
  readonly browser: Browser;
  /** A fresh tab in which the administrator has signed in, on `screen` when one is named. */
  signedInTab(screen?: string, viewport?: typeof DESKTOP): Promise<Tab>;
};

/**
 * A browser suite's set-up, registered as its hooks (call it once, at the top of the file): the
 * server and Chromium start before the first test and stop after the last, and after each test no
 * tab's request may have left the admin listener or carried the admin token in its URL.
 * `environment` gives the server's variables (e.g. a fresh database: `DATABASE_URL`).
 */
export function browserSuite(environment: () => Promise<NodeJS.ProcessEnv> | NodeJS.ProcessEnv = () => ({})): BrowserSuite {
  let started: { server: TestApp; browser: Browser } | undefined;
  const running = () => {
    if (!started) throw new Error('the browser suite has not started (use it inside a test)');
    return started;
  };
  beforeAll(async () => {
    const server = await startTestApp(await environment());
    try {
      started = { server, browser: await launchChromium() };
    } catch (error) {
      await server.close();
      throw error;
    }
  });
  afterEach(() => expectRequestsStayedOnAdmin(running().server));
  afterAll(async () => {
    await started?.browser.close();
    await started?.server.close();
  });
  return {
    get server() {
      return running().server;
    },
    get browser() {
      return running().browser;
    },
    async signedInTab(screen?: string, viewport = DESKTOP) {
      const { server, browser } = running();
      const tab = await openTab(browser, viewport);
      await signIn(tab.page, server.adminUrl, server.adminToken);
      if (screen !== undefined) await openScreen(tab.page, screen);
      return tab;
    },
  };
}

const IMAGES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'images');

/**
 * A screenshot for the docs (docs/images/console-<name>.png), taken on purpose at a chosen moment.
 * Written only when UPDATE_SCREENSHOTS=1: a plain `npm test` leaves the committed images alone.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: join(IMAGES, `console-${name}.png`), fullPage: true, animations: 'disabled' });
}
