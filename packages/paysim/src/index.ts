// @boxoffice/paysim: a Stripe-compatible payment simulator. Its public entry: what
// the service that bundles it, the rehearsal, the benches and the tests use.
import { fileURLToPath } from 'node:url';

export { buildSimulator, DEFAULT_SECRET_KEY, DEFAULT_WEBHOOK_SECRET, type Simulator, type SimulatorOptions } from './server.js';
export { chaosFromEnv, NO_CHAOS, type ChaosSettings } from './chaos.js';
export { signatureHeader } from './signature.js';
export { seededRandom, type Random } from './rng.js';
export { TEST_PAYMENT_METHODS, type TestPaymentMethod } from './paymentMethods.js';

/** The simulator's own process (`npm run paysim`): the script to run with node, built beside this file. */
export const SIMULATOR_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
