import type { Locator } from 'playwright-core';

// How long a condition may take to come true: a wait, not a speed check (bench/console.mjs measures
// the console). Two Jest workers beside a browser on two cores stretch a screen's answer to seconds.
const TIMEOUT_MS = 20_000;

// Run in the page, where `document` exists: Playwright sends these functions' source to the
// browser. The tests' TypeScript has no DOM library, so the little of the DOM they use is declared.
type PageElement = { getAttribute(name: string): string | null };
declare const document: { activeElement: unknown; getElementById(id: string): { textContent: string | null } | null };
const IS_FOCUSED = (element: unknown): boolean => element === document.activeElement;
const DESCRIPTION = (element: PageElement): string =>
  (element.getAttribute('aria-describedby') || '')
    .split(' ')
    .map((id) => (document.getElementById(id) || { textContent: '' }).textContent || '')
    .join(' ');

/**
 * Web-first assertions for playwright-core locators inside Jest (the auto-waiting `expect` of
 * @playwright/test needs its own runner): each check is retried until it holds or 5 s pass.
 */
export function expect(locator: Locator) {
  return matchers(locator, false);
}

function matchers(locator: Locator, negated: boolean) {
  const check = (description: string, holds: () => Promise<boolean>) =>
    waitFor(locator, negated ? `not ${description}` : description, async () => (await holds()) !== negated);
  const text = async () => ((await locator.count()) === 1 ? ((await locator.textContent()) ?? '') : (await locator.allTextContents()).join(' '));
  return {
    toBeVisible: () => check('to be visible', () => locator.isVisible()),
    toBeFocused: () => check('to be focused', () => locator.evaluate(IS_FOCUSED).catch(() => false)),
    toHaveCount: (count: number) => check(`to have count ${count}`, async () => (await locator.count()) === count),
    toContainText: (expected: string) => check(`to contain text ${JSON.stringify(expected)}`, async () => (await text()).includes(expected)),
    toHaveValue: (value: string) => check(`to have value ${JSON.stringify(value)}`, async () => (await locator.inputValue()) === value),
    toBeChecked: () => check('to be checked', () => locator.isChecked()),
    toHaveText: (expected: string[]) =>
      check(
        `to have texts ${JSON.stringify(expected)}`,
        async () => JSON.stringify((await locator.allTextContents()).map((item) => item.trim())) === JSON.stringify(expected),
      ),
    toHaveAttribute: (name: string, value: string) =>
      check(`to have ${name}="${value}"`, async () => (await locator.getAttribute(name).catch(() => null)) === value),
    toHaveAccessibleDescription: (pattern: RegExp) =>
      check(`to have an accessible description matching ${pattern}`, async () => {
        const description = await locator.evaluate(DESCRIPTION).catch(() => '');
        return pattern.test(description);
      }),
    get not() {
      return matchers(locator, !negated);
    },
  };
}

async function waitFor(locator: Locator, description: string, holds: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  let failure = '';
  for (;;) {
    const held = await holds().catch((error: unknown) => {
      failure = `: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      return false;
    });
    if (held) return;
    if (Date.now() > deadline) throw new Error(`expected ${locator.toString()} ${description} (waited ${TIMEOUT_MS} ms)${failure}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
