// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';

export const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);
