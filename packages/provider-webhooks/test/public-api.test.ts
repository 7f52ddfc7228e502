import { expect, it } from 'vitest';
import * as api from '../src/index.js';

it('exports exactly the documented public API (a rename is a visible decision)', () => {
  expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
    [
      "PROVIDER_A_EVENT_TYPES",
      "PROVIDER_A_SIGNATURE_HEADER",
      "PROVIDER_A_STATUS_MAP",
      "PROVIDER_A_TOLERANCE_SECONDS",
      "PROVIDER_B_EVENT_TYPES",
      "PROVIDER_B_SIGNATURE_HEADER",
      "PROVIDER_B_STATUS_MAP",
      "WebhookParseError",
      "describeSignatureFailure",
      "parseProviderAEvent",
      "parseProviderBEvent",
      "readWebhook",
      "signProviderA",
      "signProviderB",
      "verifyProviderASignature",
      "verifyProviderBSignature",
    ]
  `);
});
