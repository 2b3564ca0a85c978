import type { Browser } from 'playwright-core';

/** Where the unpacked browser is: its executable, and the folder of the shared libraries it links. */
export type ChromiumBinary = { executablePath: string; libraryPath: string };

/** Headless Chromium: the npm one unpacked, or the build CHROMIUM_PATH names. */
export function launchChromium(): Promise<Browser>;
