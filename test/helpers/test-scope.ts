/**
 * `npm run test:unit` sets KOPFGEN_TEST_SCOPE=unit: the fast loop while editing. It runs every
 * test that needs no API server, no corpus and no TypeScript program; those that do skip with
 * this reason (its file selection already leaves out test/e2e and test/integration).
 */
export const UNIT_SCOPE = process.env.KOPFGEN_TEST_SCOPE === 'unit';

/** A skip reason for a test that needs `what`, in the unit scope; `false` elsewhere. */
export function outsideUnitScope(what: string): string | false {
  return UNIT_SCOPE ? `needs ${what}: not run by npm run test:unit` : false;
}
