import { existsSync, mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
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

/**
 * The header's menu: its links' names in order (Sair included), whether it is folded into the Menu
 * button (a phone), the right edge of every item showing, the group titles showing, the page's width.
 */
export type MenuLayout = { labels: string[]; folded: boolean; groups: string[]; rights: number[]; scrollWidth: number; viewport: number };

export async function menuLayout(page: Page): Promise<MenuLayout> {
  return page.evaluate<MenuLayout>(`(() => {
    const nav = document.querySelector('header nav');
    // checkVisibility: false inside a closed details element too (its content is not rendered).
    const shown = (element) => element.checkVisibility({ visibilityProperty: true });
    const items = [...nav.querySelectorAll('.menu a, .menu button')];
    const summary = nav.querySelector('details.menu-fold > summary');
    const visible = [nav.querySelector('.brand'), summary, ...items].filter((element) => element && shown(element));
    return {
      labels: items.map((element) => element.querySelector('span')?.textContent.trim() ?? element.textContent.trim()),
      folded: shown(summary) && !nav.querySelector('details.menu-fold').open,
      groups: [...nav.querySelectorAll('.menu .group-title')].filter(shown).map((element) => element.textContent.trim()),
      rights: visible.map((element) => Math.round(element.getBoundingClientRect().right)),
      scrollWidth: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    };
  })()`);
}

/**
 * A link of the site's menu (by its name), the Menu button opened first when the menu is folded
 * (a phone): what a person does to reach a page.
 */
export async function menuLink(page: Page, name: string): Promise<Locator> {
  await openMenu(page);
  return page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name }).first();
}

/** Opens the menu with its Menu button when it is folded (a phone); a wide screen's is open already. */
export async function openMenu(page: Page): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Principal' });
  const open = await nav.locator('details.menu-fold').evaluate((element) => Reflect.get(element, 'open') === true);
  if (!open) await nav.getByText('Menu', { exact: true }).click();
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
