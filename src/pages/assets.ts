/** The one stylesheet of both sites (DESIGN.md §2: our own small CSS, served by the gateway, no CDN). */
export const PAGE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --bad: #a40e26; --ok: #116329; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
header { background: #fff; border-bottom: 1px solid var(--line); }
header nav { max-width: 76rem; margin: 0 auto; padding: .25rem 1rem; display: flex; flex-wrap: wrap; align-items: center; column-gap: 1.5rem; }
header nav .brand { flex: none; font-weight: 700; padding: .5rem 0; }
/* The menu (with Sair) is one list in a details element. On a phone it folds into the "Menu" button,
   opening as a panel under the header; wider, the button is hidden and the list always shows (even
   without the script), its groups side by side under their titles, wrapping group by group. */
header { position: relative; }
details.menu-fold { flex: 1 1 auto; background: none; border: 0; border-radius: 0; padding: 0; margin: 0; }
details.menu-fold > summary { list-style: none; display: inline-flex; align-items: center; gap: .5rem; padding: .5rem .75rem; border: 1px solid var(--accent); border-radius: 4px; color: var(--accent); background: #fff; }
details.menu-fold > summary::-webkit-details-marker { display: none; }
details.menu-fold > summary::before { content: "\\2261"; content: "\\2261" / ""; font-size: 1.25rem; line-height: 1; }
details.menu-fold[open] > summary { background: var(--accent); color: #fff; }
details.menu-fold > summary:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
header nav .menu { list-style: none; margin: 0; padding: 0; font-size: .95rem; }
header nav .menu ul { list-style: none; margin: 0; padding: 0; }
header nav .menu a, header nav .menu button.link { display: inline-block; padding: .5rem .375rem; white-space: nowrap; }
header nav .menu .group-title { display: block; color: var(--muted); font-size: .8rem; font-weight: 600; padding: 0 .375rem; }
@media (width <= 40rem) {
  header nav { justify-content: space-between; }
  header nav .brand { flex: 1 1 auto; }
  details.menu-fold { flex: none; }
  header nav .menu { position: absolute; left: 0; right: 0; top: 100%; z-index: 10; max-height: calc(100vh - 4rem); overflow-y: auto; background: #fff; border-bottom: 1px solid var(--line); box-shadow: 0 .5rem 1rem rgba(0, 0, 0, .15); padding: .5rem 1rem 1rem; }
  header nav .menu a, header nav .menu button.link { display: block; padding: .625rem .5rem; }
  header nav .menu .group { margin-top: .5rem; }
  header nav .menu .group-title { padding: .25rem .5rem 0; text-transform: uppercase; letter-spacing: .03em; }
  header nav .menu .signout { border-top: 1px solid var(--line); margin-top: .5rem; }
  header nav .menu button.link { width: 100%; text-align: left; }
}
@media (width > 40rem) {
  /* The brand and Sair on the first line, the menu's groups on the lines under them. */
  header nav { position: relative; }
  details.menu-fold { flex-basis: 100%; }
  details.menu-fold > summary { display: none; }
  details.menu-fold::details-content { content-visibility: visible; }
  header nav .menu { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0 .625rem; margin: 0 -.25rem; font-size: .875rem; }
  header nav .menu a { padding: .375rem .25rem .5rem; }
  header nav .menu .group-title { padding: 0 .25rem; }
  header nav .menu .group ul { display: flex; flex-wrap: wrap; }
  header nav .menu .signout { position: absolute; top: .25rem; right: .625rem; }
}
main { max-width: 76rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
form.stack { display: grid; grid-template-columns: minmax(0, 1fr); gap: .75rem; max-width: 24rem; background: #fff; padding: 1rem; border: 1px solid var(--line); border-radius: 6px; }
label { display: grid; grid-template-columns: minmax(0, 1fr); gap: .25rem; font-weight: 600; min-width: 0; }
input, select, textarea { max-width: 100%; }
textarea { font: 0.85rem/1.4 ui-monospace, monospace; width: 100%; padding: .5rem; border: 1px solid #8c959f; border-radius: 4px; }
/* A code to copy (a BR Code) breaks anywhere: a break at one of its spaces would read as part of it. */
textarea[readonly] { word-break: break-all; }
select { font: inherit; padding: .5rem; border: 1px solid #8c959f; border-radius: 4px; background: #fff; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; white-space: pre-line; }
input { font: inherit; padding: .5rem; border: 1px solid #8c959f; border-radius: 4px; }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
button { font: inherit; cursor: pointer; padding: .5rem 1rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; }
button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: .5rem .25rem; }
.alert { padding: .75rem 1rem; border-radius: 4px; border: 1px solid var(--bad); color: var(--bad); background: #fff; }
.notice { padding: .75rem 1rem; border-radius: 4px; border: 1px solid var(--ok); color: var(--ok); background: #fff; }
.banner { margin: 1rem 0; padding: .75rem 1rem; border-radius: 4px; border: 1px solid #9a6700; border-left-width: .5rem; background: #fff8c5; color: var(--ink); }
.banner p { margin: 0; }
.banner.urgent { border-color: var(--bad); background: #fff; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .75rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
.card .label { color: var(--muted); font-size: .9rem; }
.card .value { font-size: 1.4rem; font-weight: 700; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
/* A table wider than the screen scrolls inside its labelled region (focusable: arrow keys scroll
   it), with a visible scroll bar and a shadow on the side where columns are hidden. */
.table-wrap { overflow-x: auto; margin: 0 0 1rem;
  background:
    linear-gradient(to right, #fff 30%, rgba(255, 255, 255, 0)) left center / 2.5rem 100% no-repeat local,
    linear-gradient(to left, #fff 30%, rgba(255, 255, 255, 0)) right center / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, .45), rgba(0, 0, 0, 0)) left center / 1.25rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, .45), rgba(0, 0, 0, 0)) right center / 1.25rem 100% no-repeat scroll,
    #fff; }
.table-wrap::-webkit-scrollbar { height: .6rem; }
.table-wrap::-webkit-scrollbar-track { background: #eaeef2; }
.table-wrap::-webkit-scrollbar-thumb { background: #6e7781; border-radius: .3rem; }
.table-wrap:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
/* On a phone a list's table is a card per row: each value after its column's name (the cell's
   data-label, silent for screen readers, which keep the table's own headers), nothing to scroll. */
@media (width <= 40rem) {
  .table-wrap { overflow: visible; background: none; position: relative; }
  table.cards-narrow, table.cards-narrow > tbody, table.cards-narrow > tbody > tr, table.cards-narrow > tbody > tr > td { display: block; }
  table.cards-narrow > thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  table.cards-narrow > tbody > tr { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: 0 0 .75rem; }
  /* The name floats in the cell's left padding, the value (text, links, a form) keeps its own
     column beside it and wraps there, anywhere: a code that never breaks on a wide screen (an
     endToEndId) breaks here rather than widen the page. */
  table.cards-narrow > tbody > tr > td { display: flow-root; border: 0; padding: .25rem 0 .25rem 9.25rem; overflow-wrap: anywhere; }
  table.cards-narrow > tbody > tr > td::before { content: attr(data-label); content: attr(data-label) / ""; float: left; width: 8.5rem; margin-left: -9.25rem; font-weight: 600; color: var(--muted); }
  table.cards-narrow > tbody > tr > td :is(code, .nowrap, .status) { white-space: normal; overflow-wrap: anywhere; }
}
.money { white-space: nowrap; }
.wrap-anywhere { overflow-wrap: anywhere; }
ul.changes { margin: 0 0 .25rem; padding-left: 1rem; }
.muted { color: var(--muted); }
/* A field's hint, right under it in a form (the field names it with aria-describedby). */
form.stack .hint { margin: -.5rem 0 0; font-size: .9rem; }
pre { white-space: pre-wrap; word-break: break-all; background: #fff; border: 1px solid var(--line); padding: .5rem; }
details { background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: .5rem; margin: .25rem 0; }
summary { cursor: pointer; }
ul { padding-left: 1.25rem; }
code.secret { display: inline-block; word-break: break-all; background: #fff; border: 1px solid var(--line); padding: .25rem .5rem; }
header nav a[aria-current] { font-weight: 700; text-decoration-thickness: 3px; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: 0 0 .75rem; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: end; margin: 0 .5rem .25rem 0; }
form.inline label { font-weight: 400; font-size: .9rem; }
button.danger { background: var(--bad); border-color: var(--bad); }
button[aria-disabled="true"] { opacity: .7; cursor: progress; }
.status { white-space: nowrap; }
/* Beside its term a status may wrap: a long one (Aguardando autorização) must not widen the list past a phone's screen. */
dd .status { white-space: normal; }
ul.cases { list-style: none; padding: 0; }
ul.cases article { margin-bottom: 1.5rem; }
details > summary { font-weight: 600; padding: .25rem 0; }
.count { display: inline-block; min-width: 1.5rem; margin-left: .25rem; padding: 0 .4rem; border-radius: 1rem; background: var(--bad); color: #fff; font-size: .85rem; font-weight: 700; text-align: center; }
.pager { display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; align-items: center; margin: 0 0 1rem; }
.pager a { display: inline-block; padding: .5rem 0; }
.pager form.inline { margin: 0; }
ul.exports { display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; list-style: none; padding: 0; margin: 0 0 1rem; }
ul.exports a { display: inline-block; padding: .5rem 0; }
code.small { font-size: .85rem; }
.nowrap { white-space: nowrap; }
/* A SHA-256 (64 hex digits) breaks anywhere, but never into a column narrower than a quarter of it. */
code.digest { display: inline-block; min-width: 17ch; overflow-wrap: anywhere; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .5rem; }
/* Início: the balances beside the 30 days' chart on a wide screen, above it on a phone. */
.home-top { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; align-items: start; }
.home-top .cards { grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); }
@media (min-width: 60rem) { .home-top { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); } }
.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem 1rem; }
.chart h2 { margin: .25rem 0; font-size: 1.1rem; }
.chart svg[role="img"] { display: block; max-width: 32rem; height: auto; }
.chart .legend { margin: .25rem 0; font-size: .9rem; }
ul.attention { padding-left: 1.25rem; }
ul.attention li { margin: .25rem 0; }
ul.attention a { display: inline-block; padding: .25rem 0; }
`;

/**
 * The dashboard's one script, progressive: every page works without it. A submitted form's button
 * says it is working and cannot be pressed twice; "Copiar" buttons copy a field's text.
 */
export const PAGE_JS = `
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const button = event.submitter || form.querySelector('button[type=submit]');
  if (!button) return;
  if (button.dataset.busy) { event.preventDefault(); return; }
  button.dataset.busy = button.textContent;
  button.textContent = 'Enviando…';
  button.setAttribute('aria-disabled', 'true');
  form.setAttribute('aria-busy', 'true');
});
// A page restored from the back-forward cache gets its buttons back.
window.addEventListener('pageshow', () => {
  for (const button of document.querySelectorAll('button[data-busy]')) {
    button.textContent = button.dataset.busy;
    delete button.dataset.busy;
    button.removeAttribute('aria-disabled');
    button.closest('form')?.removeAttribute('aria-busy');
  }
});
// The menu is open on a wide screen (its button hidden) and folded on a phone: "open" follows the
// width, so screen readers hear the state the screen shows; Escape folds it back to its button.
const menuFold = document.querySelector('details.menu-fold');
if (menuFold) {
  const wide = window.matchMedia('(width > 40rem)');
  const follow = () => { menuFold.open = wide.matches; };
  follow();
  wide.addEventListener('change', follow);
  menuFold.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || wide.matches || !menuFold.open) return;
    menuFold.open = false;
    menuFold.querySelector('summary')?.focus();
  });
}
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.value ?? source.textContent);
    button.textContent = 'Copiado';
  } catch {
    source.select?.();
  }
});
`;
