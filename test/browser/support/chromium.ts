/**
 * Debian's Chromium driven by playwright-core: no browser download, the same binary on every
 * developer machine and in CI (`apt-get install chromium`).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

// Headless and quiet: no GPU, no sandbox (containers run as root), and nothing that phones
// home or updates itself while a test runs.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches Chromium; fails with the install command when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: run apt-get install -y chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}
