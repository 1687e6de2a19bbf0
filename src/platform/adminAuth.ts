import type { FastifyRequest } from 'fastify';
import { messages } from '../messages.js';
import { bearerToken } from './bearer.js';
import { UnauthenticatedError } from '../errors.js';
import { secretsEqual } from './secrets.js';

/** The audit log's actor for the shared operator token (automation); an operator user of the back-office is `operator:<id>`. */
export const ADMIN_TOKEN_ACTOR = 'admin-token';

/** onRequest hook for /admin/v1: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export function adminAuthentication(adminToken: string) {
  return async function authenticateOperator(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthenticatedError(messages.adminTokenMissing);
    if (!secretsEqual(token, adminToken)) throw new UnauthenticatedError(messages.adminTokenInvalid);
  };
}
