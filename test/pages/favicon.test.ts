import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../helpers/gateway.js';

/**
 * The icon a browser shows in its tab: every page of both sites names it inline (no file to
 * fetch), and `/favicon.ico`, which browsers and tools ask for on their own, answers it too.
 */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.close();
});

describe('favicon', () => {
  it('/favicon.ico answers an SVG icon (200, cached), not a 404', async () => {
    const answer = await fetch(`${gateway.url}/favicon.ico`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/svg+xml');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=86400');
    const body = await answer.text();
    expect(body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">[\s\S]*<\/svg>$/);
    expect(body.length).toBeLessThan(1_000);
  });

  it('the sign-in pages of the dashboard and the back-office link the same icon inline', async () => {
    const icon = await (await fetch(`${gateway.url}/favicon.ico`)).text();
    for (const path of ['/dashboard/entrar', '/backoffice/entrar']) {
      const html = await (await fetch(`${gateway.url}${path}`)).text();
      const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html)?.[1] ?? '';
      expect([path, href.startsWith('data:image/svg+xml,')]).toEqual([path, true]);
      expect(decodeURIComponent(href.slice('data:image/svg+xml,'.length))).toBe(icon);
    }
  });
});
