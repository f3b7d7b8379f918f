import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError } from '../../../src/runtime/kube/client.js';
import { createMetrics, observeRequest } from '../../../src/runtime/observe/metrics.js';

const t0 = new Date('2026-01-01T00:00:00Z');

/** The value of one series in the text exposition, or undefined when the series is absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics facade', () => {
  it('handler runs, durations and retries by their labels', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const labels = { resource: 'myresources.example.com/v1', handler: 'myapp', cause: 'create' };
    metrics.handlerRun({ ...labels, outcome: 'success', seconds: 0.2 });
    metrics.handlerRun({ ...labels, outcome: 'temporary', seconds: 3 });
    metrics.handlerRun({ ...labels, outcome: 'temporary', seconds: 0.001 });
    metrics.retry(labels);
    metrics.retry(labels);
    const text = await metrics.scrape();
    const l = 'resource="myresources.example.com/v1",handler="myapp",cause="create"';
    assert.equal(value(text, `kopfgen_handler_runs_total{${l},outcome="success"}`), 1);
    assert.equal(value(text, `kopfgen_handler_runs_total{${l},outcome="temporary"}`), 2);
    assert.equal(value(text, `kopfgen_handler_duration_seconds_count{${l}}`), 3);
    assert.equal(value(text, `kopfgen_handler_duration_seconds_sum{${l}}`), 3.201);
    assert.equal(value(text, `kopfgen_handler_duration_seconds_bucket{le="0.005",${l}}`), 1);
    assert.equal(value(text, `kopfgen_handler_duration_seconds_bucket{le="0.25",${l}}`), 2);
    assert.equal(value(text, `kopfgen_handler_duration_seconds_bucket{le="+Inf",${l}}`), 3);
    assert.equal(value(text, `kopfgen_handler_retries_total{${l}}`), 2);
  });

  it('queue depth, watch restarts and the watch age computed at scrape time', async () => {
    let now = t0;
    const metrics = createMetrics({ processMetrics: false, now: () => now });
    metrics.queueDepth('a', 7);
    metrics.queueDepth('a', 3);
    metrics.watchRestart('a');
    metrics.watchRestart('a');
    metrics.watchEvent('a');
    now = new Date(t0.getTime() + 42_500);
    let text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_queue_depth{resource="a"}'), 3);
    assert.equal(value(text, 'kopfgen_watch_restarts_total{resource="a"}'), 2);
    assert.equal(value(text, 'kopfgen_watch_age_seconds{resource="a"}'), 42.5);
    metrics.watchEvent('a');
    text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_watch_age_seconds{resource="a"}'), 0);
  });

  it('a replica that stands by again exports no queue depth and no watch age (a standby has neither)', async () => {
    let now = t0;
    const metrics = createMetrics({ processMetrics: false, now: () => now });
    metrics.leader(true);
    metrics.queueDepth('a', 4);
    metrics.watchEvent('a');
    metrics.watchRestart('a');
    metrics.leader(false);
    metrics.standby();
    now = new Date(t0.getTime() + 600_000);
    const text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_queue_depth{resource="a"}'), undefined);
    assert.equal(value(text, 'kopfgen_watch_age_seconds{resource="a"}'), undefined, 'no age growing for ever');
    assert.equal(value(text, 'kopfgen_watch_restarts_total{resource="a"}'), 1, 'counters keep their totals');
    assert.equal(value(text, 'kopfgen_leader'), 0);
  });

  it('API requests by verb and code (no answer is <error>), latency by verb, leader, events', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.apiRequest({ verb: 'PATCH', code: 200, seconds: 0.01 });
    metrics.apiRequest({ verb: 'PATCH', code: 409, seconds: 0.02 });
    metrics.apiRequest({ verb: 'GET', code: undefined, seconds: 30 });
    metrics.leader(true);
    metrics.event('created');
    metrics.event('dropped');
    metrics.event('dropped');
    let text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="PATCH",code="200"}'), 1);
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="PATCH",code="409"}'), 1);
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="GET",code="<error>"}'), 1);
    assert.equal(value(text, 'kopfgen_api_request_duration_seconds_count{verb="PATCH"}'), 2);
    assert.equal(value(text, 'kopfgen_api_request_duration_seconds_bucket{le="15",verb="GET"}'), 0);
    assert.equal(value(text, 'kopfgen_leader'), 1);
    assert.equal(value(text, 'kopfgen_events_total{action="dropped"}'), 2);
    metrics.leader(false);
    text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_leader'), 0);
  });

  it('starts the start gate refused, by reason', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.startRefused('renew_deadline');
    metrics.startRefused('not_held');
    metrics.startRefused('not_held');
    const text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_starts_refused_total{reason="renew_deadline"}'), 1);
    assert.equal(value(text, 'kopfgen_starts_refused_total{reason="not_held"}'), 2);
  });

  it('the hash ranges held (a gauge) and handed over by direction (a counter)', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_shard_ranges_held'), 0);
    metrics.rangesHeld(11);
    metrics.handover('in');
    metrics.handover('in');
    metrics.handover('out');
    text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_shard_ranges_held'), 11);
    assert.equal(value(text, 'kopfgen_shard_handovers_total{direction="in"}'), 2);
    assert.equal(value(text, 'kopfgen_shard_handovers_total{direction="out"}'), 1);
  });

  it('two operators in one process keep separate registries; process metrics are on by default', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.queueDepth('r', 5);
    const [textA, textB] = [await a.scrape(), await b.scrape()];
    assert.equal(value(textA, 'kopfgen_queue_depth{resource="r"}'), 5);
    assert.equal(value(textB, 'kopfgen_queue_depth{resource="r"}'), undefined);
    assert.match(textA, /^process_resident_memory_bytes \d+/m);
    assert.match(textA, /^nodejs_eventloop_lag_seconds /m);
    assert.match(a.contentType, /^text\/plain; version=0\.0\.4/);
  });

  it('observeRequest counts an answer by its code, a failure without one as <error>, and rethrows', async () => {
    const metrics = createMetrics({ processMetrics: false });
    assert.equal(await observeRequest(metrics, 'GET', async () => 'body'), 'body');
    const conflict = new KubeError('PATCH /x: 409 conflict', 409, {});
    await assert.rejects(
      observeRequest(metrics, 'PATCH', () => Promise.reject(conflict)),
      conflict,
    );
    const reset = new Error('ECONNRESET');
    await assert.rejects(
      observeRequest(metrics, 'PATCH', () => Promise.reject(reset)),
      reset,
    );
    const text = await metrics.scrape();
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="GET",code="200"}'), 1);
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="PATCH",code="409"}'), 1);
    assert.equal(value(text, 'kopfgen_api_requests_total{verb="PATCH",code="<error>"}'), 1);
    assert.equal(value(text, 'kopfgen_api_request_duration_seconds_count{verb="PATCH"}'), 2);
  });
});
