import { startMockDealer } from '../../src/mock/index.js';
const m = await startMockDealer({ port: 18080 });
console.log('up', m.url, m.dealer.inventory.firstAvailable().vin, m.dealer.inventory.firstSold().vin);
setTimeout(() => m.close(), 60_000);
