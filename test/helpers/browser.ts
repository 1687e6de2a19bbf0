import { existsSync, mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium (installed by .ci/run with apt-get), never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = new URL('../../test-results/screenshots/', import.meta.url);

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH.`);
  // As root (CI containers) Chromium refuses to start without --no-sandbox.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** axe on the page as it is: no serious or critical violation (DESIGN.md §10: WCAG 2.1 AA). */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`)).toEqual([]);
}

/** A full-page screenshot under test-results/screenshots/ (ignored by git), to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}

/** Where the header sits: the vertical centre and right edge of the brand and of each menu item (Sair included), and the page's width. */
export type MenuLayout = { labels: string[]; centres: number[]; rights: number[]; scrollWidth: number; viewport: number };

export async function menuLayout(page: Page): Promise<MenuLayout> {
  return page.evaluate<MenuLayout>(`(() => {
    const nav = document.querySelector('header nav');
    const items = [nav.querySelector('.brand'), ...nav.querySelectorAll('.menu > li')];
    const boxes = items.map((element) => element.getBoundingClientRect());
    return {
      labels: items.map((element) => element.textContent.trim()),
      centres: boxes.map((box) => Math.round(box.top + box.height / 2)),
      rights: boxes.map((box) => Math.round(box.right)),
      scrollWidth: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    };
  })()`);
}

/** Each table's scroll region: its role, name and tab stop, and whether its table is wider than it (it scrolls). */
export type TableRegion = { role: string | null; label: string | null; tabIndex: number; scrolls: boolean };

export async function tableRegions(page: Page): Promise<TableRegion[]> {
  return page.evaluate<TableRegion[]>(`[...document.querySelectorAll('table')].map((table) => {
    const region = table.parentElement;
    return { role: region.getAttribute('role'), label: region.getAttribute('aria-label'), tabIndex: region.tabIndex, scrolls: region.scrollWidth > region.clientWidth };
  })`);
}

/**
 * Amounts a line could break inside: every text with "R$" before a digit must be inside a `.money`
 * (which never wraps) and sit on one line; an SVG's text never wraps. Answers the offending texts.
 */
export async function breakableMoney(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const offending = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!/R\\$\\s*\\d/.test(node.textContent) || node.parentElement.closest('option, textarea, pre, svg')) continue;
      const money = node.parentElement.closest('.money');
      if (!money || getComputedStyle(money).whiteSpace !== 'nowrap' || money.getClientRects().length !== 1) offending.push(node.textContent);
    }
    return offending;
  })()`);
}
