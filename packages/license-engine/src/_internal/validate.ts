import { LicensingError } from './errors.js';

/** Input checks for vendor and client requests: each failure is `invalid_request` naming the field. */
export function invalid(message: string): never {
  throw new LicensingError('invalid_request', message);
}

export function asObject(value: unknown, what = 'body'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(`${what} must be an object`);
  return value as Record<string, unknown>;
}

export function requireString(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(`${field} must be a non-empty string`);
  const text = value.trim();
  if (text.length > max) invalid(`${field} must be at most ${max} characters`);
  return text;
}

export function optionalString(value: unknown, field: string, max = 200): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') invalid(`${field} must be a string`);
  if (value.length > max) invalid(`${field} must be at most ${max} characters`);
  return value;
}

export function requireInt(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(`${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') invalid(`${field} must be true or false`);
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Trimmed, lowercased e-mail address. */
export function requireEmail(value: unknown, field = 'email'): string {
  if (typeof value !== 'string') invalid(`${field} must be an e-mail address`);
  const email = value.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) invalid(`${field} must be an e-mail address`);
  return email;
}
