import { describe, expect } from '@jest/globals';
import axe from 'axe-core';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (the `chromium` package): no browser is downloaded by the tests. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Kept after the run: a picture of each main page of the console (test/artifacts is ignored by git). */
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '../artifacts/console');

/**
 * Browser tests run wherever Chromium is installed. In CI they always run, so that a
 * missing browser fails the build instead of skipping the tests.
 */
export const describeInBrowser =
  existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // No sandbox as root; none of Chromium's own calls home (this machine's network is closed).
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Requests to anywhere but the service, CSP violations, script errors. */
  problems: string[];
}

/** A page in a fresh context (its own session storage), watched for what must not happen. */
export async function openPage(
  browser: Browser,
  origin: string,
  viewport = { width: 1280, height: 800 },
  /** Origins the page may also reach, such as a test's sign-in provider. */
  otherOrigins: string[] = [],
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, baseURL: origin });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (![origin, ...otherOrigins].some((allowed) => url.startsWith(`${allowed}/`))) {
      problems.push(`request outside the service: ${url}`);
    }
  });
  page.on('console', (message) => {
    // Chromium logs every 4xx answer as "Failed to load resource"; the tests provoke some.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  return { page, context, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2.1 A and AA rules on the page as it is now: one line per violation. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run(options: object): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe.run({ runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return result.violations;
  });
  return violations.map(
    (violation) =>
      `${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** True when the page is no wider than the window (nothing to scroll sideways). */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** The page's h1 of this exact name. */
export function heading(page: Page, name: string) {
  return page.getByRole('heading', { level: 1, name, exact: true });
}

export interface CheckedPage {
  route: string;
  /** Its h1, awaited before checking. */
  title: string;
  /** The screenshot's name. */
  name: string;
}

/**
 * Opens each page in turn at the window's current size: it fits the width, axe finds no
 * violation, and a screenshot is saved. Failures name the route.
 */
export async function checkPages(page: Page, pages: CheckedPage[]): Promise<void> {
  for (const { route, title, name } of pages) {
    await page.goto(route);
    await heading(page, title).waitFor();
    await page.waitForLoadState('networkidle');
    expect({ route, fits: await fitsWidth(page) }).toEqual({ route, fits: true });
    expect({ route, violations: await accessibilityViolations(page) }).toEqual({
      route,
      violations: [],
    });
    await screenshot(page, name);
  }
}
