// One ajv instance for request validation. Schemas are compiled once, when the routes are defined.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { FieldError } from '../lib/workflow-safe/errors.ts';
import { ValidationError } from '../lib/workflow-safe/errors.ts';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

export type JsonSchema = Record<string, unknown>;

export const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true, coerceTypes: false, discriminator: true });
addFormats(ajv);

/** Query strings arrive as strings; this instance coerces them to the schema's types. */
export const queryAjv = new Ajv({ allErrors: true, strict: true, useDefaults: true, coerceTypes: true, discriminator: true });
addFormats(queryAjv);

export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((error) => {
    const extraProperty =
      error.keyword === 'additionalProperties' ? (error.params as { additionalProperty: string }).additionalProperty : undefined;
    const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
    const path =
      extraProperty !== undefined || missing !== undefined
        ? `${error.instancePath}/${String(extraProperty ?? missing)
            .replace(/~/g, '~0')
            .replace(/\//g, '~1')}`
        : error.instancePath;
    const message = extraProperty !== undefined ? 'is not a known property' : (error.message ?? 'is invalid');
    return { path, message };
  });
}

export function validator<T>(validate: ValidateFunction, what: string): (value: unknown) => T {
  return (value) => {
    if (validate(value)) return value as T;
    const errors = toFieldErrors(validate.errors);
    const first = errors[0];
    throw new ValidationError(
      first ? `The ${what} is not valid: ${first.path || '(root)'} ${first.message}` : `The ${what} is not valid`,
      errors,
    );
  };
}
