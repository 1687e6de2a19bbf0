/**
 * The sites' icon: a diamond on the accent's blue, drawn in SVG (a few hundred bytes, no file in
 * the repository to keep in step). Pages name it inline (`FAVICON_HREF`); `/favicon.ico`, which
 * browsers and tools ask for on their own, answers the same text.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#0b5cad"/>' +
  '<path d="M16 5 27 16 16 27 5 16Z" fill="none" stroke="#fff" stroke-width="3.5" stroke-linejoin="round"/>' +
  '<circle cx="16" cy="16" r="3" fill="#fff"/>' +
  '</svg>';

export const FAVICON_HREF = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;
