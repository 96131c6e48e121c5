// Debian's Chromium driven by playwright-core, for the dashboard's tests: one browser per test file,
// a fresh context (its own sessionStorage) per page under test, the page's console watched for
// Content-Security-Policy refusals and uncaught errors.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { ensureDashboardBuilt } from './build.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/**
 * Limits for a browser test file (`vi.setConfig(BROWSER_TEST_LIMITS)`): a test walks a page step by
 * step, each step waiting for what the person would see; on a loaded machine (the whole suite on two
 * cores) that adds up past vitest's 30 s per test, and a page can take longer than expect.poll's
 * default second to show what the service has done.
 */
export const BROWSER_TEST_LIMITS = { testTimeout: 120_000, expect: { poll: { timeout: 20_000, interval: 100 } } };
const SCREENSHOTS_DIR = path.resolve('.data/screenshots');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * The browser of a test file, called at its top: the dashboard built and Chromium launched before the
 * file's tests, closed after them, with the browser test limits. Pages open with `openPage(browser())`.
 */
export function browserForTests(): () => Browser {
  vi.setConfig(BROWSER_TEST_LIMITS);
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureDashboardBuilt();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());
  return () => {
    if (!browser) throw new Error('the browser is launched in beforeAll: open pages inside a test');
    return browser;
  };
}

export interface DashboardPage {
  page: Page;
  /** What the page's console reported as refused by the CSP or thrown and not caught. */
  faults: string[];
  close(): Promise<void>;
}

export async function openPage(browser: Browser): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const faults: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) faults.push(message.text());
  });
  page.on('pageerror', (error) => faults.push(`uncaught: ${error.message}`));
  return { page, faults, close: () => context.close() };
}

/** Signs in on the sign-in page, as a person would. */
export async function signIn(page: Page, baseUrl: string, apiKey: string, at = '/app/'): Promise<void> {
  await page.goto(`${baseUrl}${at}`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A 1280x800 screenshot under .data/screenshots/ (git-ignored), to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`) });
}

/**
 * axe-core's check of the page as it stands: no serious or critical violation. Evaluated through the
 * browser's debugging protocol, which the page's CSP does not govern (a script tag it would refuse).
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  expect(violations).toEqual([]);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}
