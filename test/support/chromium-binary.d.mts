import type { Browser } from 'playwright-core';

/** Where the unpacked browser is: its executable, and the folder of the shared libraries it links. */
export type ChromiumBinary = { executablePath: string; libraryPath: string };

/** Unpacks the browser `@sparticuz/chromium` carries on first use (about 10 s), then answers at once. */
export function npmChromium(): Promise<ChromiumBinary>;

/** Headless Chromium: the npm one unpacked, or the build CHROMIUM_PATH names. */
export function launchChromium(): Promise<Browser>;
