/**
 * What a service refuses, by kind. Services throw these with a message from the catalog
 * (`messages.ts`) and know nothing of HTTP; `httpStatusOf` below is the one place that turns a
 * kind into its status.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

/** The input breaks a rule (format, range, a field that does not fit another). */
export class InvalidRequestError extends DomainError {
  readonly kind = 'invalid_request';
}

/** No credentials, or credentials that do not identify anyone. */
export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated';
}

/** The caller is known but may not do this (account state, IP, a destination the holder does not own). */
export class NotAllowedError extends DomainError {
  readonly kind = 'not_allowed';
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

/** The object is not in a state that allows the operation (e.g. a transition its status forbids). */
export class InvalidStateError extends DomainError {
  readonly kind = 'invalid_state';
}

export class InsufficientBalanceError extends DomainError {
  readonly kind = 'insufficient_balance';
}

/** A cap of the account is reached (daily/monthly amounts, recipients, webhook URLs). */
export class LimitExceededError extends DomainError {
  readonly kind = 'limit_exceeded';
}

/** The request's payload is larger than the route takes (an evidence file over 10 MB). */
export class TooLargeError extends DomainError {
  readonly kind = 'too_large';
}

/** The payload's own bytes are of a type the route does not take (an evidence file that is not PDF, PNG or JPEG). */
export class UnsupportedTypeError extends DomainError {
  readonly kind = 'unsupported_type';
}

/** Too many requests in a time window. */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited';
}

/** The destination (a key, its holder's document) is fraud-marked by the operators or the DICT (DESIGN.md §19). */
export class FraudRestrictedError extends DomainError {
  readonly kind = 'fraud_restricted';
}

/** The PIX provider refused or could not be reached (or its confirmation was lost). */
export class ProviderFailedError extends DomainError {
  readonly kind = 'provider_failed';
}

export type DomainErrorKind =
  | 'invalid_request'
  | 'unauthenticated'
  | 'not_allowed'
  | 'not_found'
  | 'invalid_state'
  | 'insufficient_balance'
  | 'limit_exceeded'
  | 'too_large'
  | 'unsupported_type'
  | 'rate_limited'
  | 'fraud_restricted'
  | 'provider_failed';

const HTTP_STATUS: Record<DomainErrorKind, number> = {
  invalid_request: 400,
  unauthenticated: 401,
  not_allowed: 403,
  not_found: 404,
  invalid_state: 422,
  insufficient_balance: 422,
  limit_exceeded: 422,
  too_large: 413,
  unsupported_type: 415,
  rate_limited: 429,
  fraud_restricted: 422,
  provider_failed: 502,
};

/** The HTTP status of a refusal; the body is `{ error: error.message }`. */
export const httpStatusOf = (error: DomainError): number => HTTP_STATUS[error.kind];
