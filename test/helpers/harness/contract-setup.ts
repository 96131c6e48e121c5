// A vitest setup file (vitest.config.ts `setupFiles`): a response of the in-process API that
// disagrees with the OpenAPI document (contract-check.ts) fails the test during which it was sent, or,
// when it ends after its test (a stream closed at teardown), the file's last hook.
import { afterAll, afterEach } from 'vitest';
import { takeViolations } from './contract-check.ts';

function failOnViolations(): void {
  const found = takeViolations();
  if (found.length > 0) {
    throw new Error(`Responses disagree with the OpenAPI document (openapi.json):\n- ${found.join('\n- ')}`);
  }
}

afterEach(failOnViolations);
afterAll(failOnViolations);
