import t from 'tap';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import { grade, JournalBuilder, reply } from './journal-builder.js';

t.test('activating the extension on the next request passes', async (t) => {
  const j = new JournalBuilder();
  const refused = j.at(0, reply.extensionRequired());
  j.at(50, { method: undefined, skill: undefined, http_method: 'GET', path: '/.well-known/agent-card.json' }); // card refresh: not a request
  const fixed = j.at(100, { extensions: [AAP_EXTENSION_URI_2_0_DRAFT] });
  const result = grade(j.entries, 'activation');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [refused, fixed]);
});

t.test('stopping after -32008 passes', async (t) => {
  const j = new JournalBuilder();
  const refused = j.at(0, reply.extensionRequired());
  const result = grade(j.entries, 'activation');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [refused]);
});

t.test('sending the next request without the header fails', async (t) => {
  const j = new JournalBuilder();
  const refused = j.at(0, reply.extensionRequired());
  const unchanged = j.at(100, { skill: 'dealer.information', request_hash: 'hash-info' });
  const result = grade(j.entries, 'activation');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [refused, unchanged]);
  t.match(result.explanation, /1 request after -32008 without an AAP extension URI in A2A-Extensions/);
});

t.test('when told the required URI, another AAP URI does not count', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { rpc_code: -32008, source: 'injected' }); // the code alone identifies the reply
  j.at(100, { extensions: [AAP_EXTENSION_URI_1_3] });
  t.equal(grade(j.entries, 'activation').verdict, 'PASS', 'any AAP URI when not told');
  const told = grade(j.entries, 'activation', { extensionUri: AAP_EXTENSION_URI_2_0_DRAFT });
  t.equal(told.verdict, 'FAIL');
  t.match(told.explanation, AAP_EXTENSION_URI_2_0_DRAFT);
});

t.test('not exercised without a -32008 reply', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.refused('SCHEMA_VALIDATION_FAILED'));
  j.at(10, { ...reply.extensionRequired(), aborted: true });
  j.at(20);
  const result = grade(j.entries, 'activation');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
