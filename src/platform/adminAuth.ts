import type { FastifyRequest } from 'fastify';
import { messages } from '../messages.js';
import { bearerToken } from './bearer.js';
import { ApiError } from './errors.js';
import { secretsEqual } from './secrets.js';

/** onRequest hook for /admin/v1: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export function adminAuthentication(adminToken: string) {
  return async function authenticateOperator(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new ApiError(401, messages.adminTokenMissing);
    if (!secretsEqual(token, adminToken)) throw new ApiError(401, messages.adminTokenInvalid);
  };
}
