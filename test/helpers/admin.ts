import type { z } from 'zod';
import type { accountResponse } from '../../src/accounts/adminSchemas.js';

/**
 * Bodies of the operator API (/admin/v1), which the merchant document (and so the SDK's types)
 * leaves out: read from the routes' zod response schemas where they are exported, written here
 * as the route declares them where they are inline.
 */

/** GET, POST and PATCH /admin/v1/accounts… */
export type Account = z.infer<typeof accountResponse>;
/** POST /admin/v1/accounts/{id}/api-keys (the key is shown once). */
export type CreatedApiKey = { keyId: string; apiKey: string; prefix: string };
/** PATCH /admin/v1/api-keys/{id}: the key's own IP allowlist (null: the account's applies). */
export type ApiKeySettings = { keyId: string; accountId: string; prefix: string; ipAllowlist: string[] | null; revoked: boolean };
