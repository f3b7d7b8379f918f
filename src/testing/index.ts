export { expectOutcome, invoke, NotDue } from './invoke.js';
export type { Attempted, Expected, InvokeCause, InvokeOptions, Invoked } from './invoke.js';
export { assertRoundTrip, firstDifference, roundTrip } from './round-trip.js';
export type { RoundTripFailure, RoundTripOptions } from './round-trip.js';
export { parseSchemaData, random, sampleObject, sampleValue } from './sample-objects.js';
export type { JsonSchema, SchemaData } from './sample-objects.js';
