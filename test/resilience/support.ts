// Shared machinery of the resilience tests (not a test file).
export * from './client.js';
export * from './settle.js';
export * from './invariants.js';
