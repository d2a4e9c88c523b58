// `ctl` from the command line takes every flag its usage line names, --ttl included: the words
// and flags are parsed once, by the command line's parser, and reach the verb as they were given.
import t from 'tap';
import { startChaos } from '../../src/index.js';
import { cli } from '../helpers/cli-run.js';

t.test('ctl disable ID --ttl 1h switches the rule back by itself, later', async (t) => {
  const chaos = await startChaos({ scenario: 'flaky-internal' });
  t.teardown(() => chaos.close());
  const r = await cli(['ctl', 'disable', 'vehicle-outage', '--ttl', '1h', '--admin', chaos.adminUrl]);
  t.equal(r.code, 0, r.err);
  t.match(r.out, /^off +vehicle-outage .*; reverts to enabled in 3600 s$/m);
  t.match(chaos.status(), { rules: [{ id: 'vehicle-outage', enabled: false }], ttl: [{ target: 'rule:vehicle-outage', reverts_to: 'enabled' }] });
  const bad = await cli(['ctl', 'enable', 'vehicle-outage', '--ttl', 'soon', '--admin', chaos.adminUrl]);
  t.equal(bad.code, 1, 'the instance refuses the value, naming the parameter');
  t.match(bad.err, /ttl/);
});
