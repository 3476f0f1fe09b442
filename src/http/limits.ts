/** The contract's limit on request bodies: larger ones are 400 VALIDATION_FAILED. */
export const BODY_LIMIT = 64 * 1024;
