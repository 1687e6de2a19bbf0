/** The token of `Authorization: Bearer <token>`; any other shape counts as no token. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return /^Bearer[ \t]+(\S+)\s*$/i.exec(header)?.[1];
}
