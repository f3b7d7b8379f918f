export { LeaderElector, leaderTimings } from './leader-elector.js';
export type { LeaderCallbacks, LeaderElectorOptions, LeaderRole, LeaseClient, LeaderState } from './leader-elector.js';
export { DEFAULT_TIMINGS, decideLease, releaseRecord, timingProblems } from './lease-decision.js';
export type { LeaderTimings, LeaseStep, LeaseView } from './lease-decision.js';
export { defaultIdentity, leaseNamespace, SERVICE_ACCOUNT_NAMESPACE } from './leader-identity.js';
export { formatMicroTime, parseMicroTime } from './lease-record.js';
export type { Lease, LeaseRecord, LeaseRef } from './lease-record.js';
