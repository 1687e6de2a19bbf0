import { randomBytes } from 'node:crypto';
import type { Db } from '../platform/database.js';
import { ProviderError, type ChargeRequest, type CreatedCharge, type PixProvider } from './provider.js';
import { takeDirective } from './sandboxDirectives.js';

/**
 * The built-in PIX network simulator. Charges get a location on our own public host
 * (`<host>/pix/v2/<32 hex>`, DESIGN.md §5); failures are the ones armed through the sandbox.
 */
export class SimulatedPixProvider implements PixProvider {
  readonly name = 'simulated';

  constructor(
    private readonly db: Db,
    private readonly locationHost: string,
  ) {}

  async createCharge(request: ChargeRequest): Promise<CreatedCharge> {
    const outcome = await takeDirective(this.db, request.accountId, 'charge');
    if (outcome === 'provider_error') throw new ProviderError('simulated provider error on charge creation');
    return { location: `${this.locationHost}/pix/v2/${randomBytes(16).toString('hex')}` };
  }
}
