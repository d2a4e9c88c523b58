/** How the resilient buyer reads AAP errors out of what the SDK hands it. */
import t from 'tap';
import { aapErrorOf, requiredExtensionOf } from '../../examples/resilient-buyer.js';
import { buildAapError, buildExtensionRequired } from '../../src/protocol/envelopes.js';
import { AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';

t.test('the 1.3 payload is the bare data object', async (t) => {
  const { error } = buildAapError('1.3', 'RATE_LIMITED', 1, { retryAfterMs: 1200 });
  t.match(aapErrorOf(error.data), { code: 'RATE_LIMITED', retryable: true, details: { retry_after_ms: 1200 } });
});

t.test('the 2.0 payload is found by @type, wherever it sits in data', async (t) => {
  const { error } = buildAapError('2.0', 'VEHICLE_UNAVAILABLE', 1);
  const data = error.data as unknown[];
  t.match(aapErrorOf(data), { code: 'VEHICLE_UNAVAILABLE', retryable: false });
  t.match(aapErrorOf([...data].reverse()), { code: 'VEHICLE_UNAVAILABLE' }, 'order does not matter');
  t.equal(aapErrorOf(data.filter((e) => (e as { '@type'?: string })['@type']?.endsWith('ErrorInfo'))), undefined, 'an ErrorInfo alone is not the payload');
});

t.test('the extension a -32008 asks for comes from metadata, else from the message', async (t) => {
  const { error } = buildExtensionRequired(AAP_EXTENSION_URI_2_0_DRAFT, 1);
  t.equal(requiredExtensionOf(error.data, error.message), AAP_EXTENSION_URI_2_0_DRAFT);
  t.equal(requiredExtensionOf(undefined, error.message), AAP_EXTENSION_URI_2_0_DRAFT);
  t.equal(requiredExtensionOf(undefined, 'A required extension was not activated.'), undefined);
});
