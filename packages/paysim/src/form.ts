// Stripe's v1 request encoding: application/x-www-form-urlencoded with bracket
// nesting (metadata[booking_id]=…, expand[]=…, expand[0]=…), parsed with qs as
// Stripe's own libraries encode it, and read through typed, validating accessors.
import qs from 'qs';
import { invalidParam, missingParam, unknownParam } from './errors.js';
import type { Metadata } from './objects.js';

export type Form = Record<string, unknown>;

export function parseForm(text: string): Form {
  return qs.parse(text, { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowPrototypes: false });
}

/** Typed reads of one request's parameters; every failure is Stripe's 400 for that parameter. */
export class Params {
  constructor(private readonly form: Form) {}

  /** Stripe rejects parameters it does not know; so does the simulator (catches typos early). */
  allowOnly(allowed: ReadonlySet<string>): this {
    for (const name of Object.keys(this.form)) if (!allowed.has(name)) throw unknownParam(name);
    return this;
  }

  has(name: string): boolean {
    return this.form[name] !== undefined && this.form[name] !== '';
  }

  string(name: string): string | null {
    const value = this.form[name];
    if (value === undefined || value === '') return null;
    if (typeof value !== 'string') throw invalidParam(`Invalid string: ${JSON.stringify(value)}`, 'parameter_invalid_string', name);
    return value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === null) throw missingParam(name);
    return value;
  }

  /** A positive whole number of minor units (Stripe's "Invalid integer" otherwise). */
  amount(name: string): number | null {
    const raw = this.string(name);
    if (raw === null) return null;
    if (!/^\d{1,12}$/.test(raw)) throw invalidParam(`Invalid integer: ${raw}`, 'parameter_invalid_integer', name);
    const value = Number(raw);
    if (value < 1) throw invalidParam('Amount must be at least 1 in minor units.', 'amount_too_small', name);
    if (value > 99_999_999) throw invalidParam('Amount must be no more than 99999999 in minor units.', 'amount_too_large', name);
    return value;
  }

  boolean(name: string): boolean {
    const raw = this.string(name);
    if (raw === null || raw === 'false') return false;
    if (raw === 'true') return true;
    throw invalidParam(`Invalid boolean: ${raw}`, 'parameter_invalid_boolean', name);
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | null {
    const raw = this.string(name);
    if (raw === null) return null;
    if (!(values as readonly string[]).includes(raw)) {
      throw invalidParam(`Invalid ${name}: must be one of ${values.join(', ')}`, 'parameter_invalid_string', name);
    }
    return raw as T;
  }

  /** Stripe's limits: 50 keys, key up to 40 characters, value up to 500; an empty value drops the key. */
  metadata(): Metadata {
    const raw = this.form.metadata;
    if (raw === undefined || raw === '') return {};
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw invalidParam('Invalid metadata: must be a hash of string keys and values', 'parameter_invalid_string', 'metadata');
    }
    const out: Metadata = {};
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length > 50) throw invalidParam('Invalid metadata: at most 50 keys', 'parameter_invalid_string', 'metadata');
    for (const [key, value] of entries) {
      if (typeof value !== 'string') throw invalidParam(`Invalid metadata[${key}]: must be a string`, 'parameter_invalid_string', `metadata[${key}]`);
      if (key.length > 40) throw invalidParam(`Invalid metadata key ${key}: at most 40 characters`, 'parameter_invalid_string', 'metadata');
      if (value.length > 500) throw invalidParam(`Invalid metadata[${key}]: at most 500 characters`, 'parameter_invalid_string', `metadata[${key}]`);
      if (value !== '') out[key] = value;
    }
    return out;
  }
}
