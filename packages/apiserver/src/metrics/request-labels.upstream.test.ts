// Upstream's request-metrics vectors, transcribed as tables.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/endpoints/metrics/metrics_test.go
//           (TestCleanVerb, TestCleanScope, TestRecordDroppedRequests: the labels of each case)
import { describe, expect, it } from 'vitest';
import { cleanDryRun, cleanScope, cleanVerb, requestLabels, type ResourceRequest, type ScopeInfo, type VerbRequest } from './request-labels.js';

describe('cleanVerb (upstream TestCleanVerb)', () => {
  const cases: readonly { desc: string; initialVerb: string; suggestedVerb?: string; request?: VerbRequest; expectedVerb: string }[] = [
    { desc: 'An empty string should be designated as unknown', initialVerb: '', expectedVerb: 'other' },
    { desc: 'LIST should normally map to LIST', initialVerb: 'LIST', expectedVerb: 'LIST' },
    {
      desc: 'LIST should be transformed to WATCH if we have the right query param on the request',
      initialVerb: 'LIST',
      request: { method: 'GET', query: new URLSearchParams('watch=true') },
      expectedVerb: 'WATCH',
    },
    {
      desc: "LIST isn't transformed to WATCH if we have query params that do not include watch",
      initialVerb: 'LIST',
      request: { method: 'GET', query: new URLSearchParams('blah=asdf&something=else') },
      expectedVerb: 'LIST',
    },
    { desc: 'GET is transformed to WATCH if we have the right query param on the request', initialVerb: 'GET', request: { method: 'GET', query: new URLSearchParams('watch=true') }, expectedVerb: 'WATCH' },
    { desc: 'LIST is transformed to WATCH for the old pattern watch', initialVerb: 'LIST', suggestedVerb: 'WATCH', request: { method: 'GET', query: new URLSearchParams('/api/v1/watch/pods') }, expectedVerb: 'WATCH' },
    {
      desc: 'LIST is transformed to WATCH for the old pattern watchlist',
      initialVerb: 'LIST',
      suggestedVerb: 'WATCHLIST',
      request: { method: 'GET', query: new URLSearchParams('/api/v1/watch/pods') },
      expectedVerb: 'WATCH',
    },
    { desc: 'WATCHLIST should be transformed to WATCH', initialVerb: 'WATCHLIST', expectedVerb: 'WATCH' },
    { desc: 'PATCH should be transformed to APPLY with the right content type', initialVerb: 'PATCH', request: { contentType: 'application/apply-patch+yaml' }, expectedVerb: 'APPLY' },
    { desc: "PATCH shouldn't be transformed to APPLY without the right content type", initialVerb: 'PATCH', expectedVerb: 'PATCH' },
    { desc: 'unexpected verbs should be designated as unknown', initialVerb: 'notValid', expectedVerb: 'other' },
  ];
  it.each(cases)('$desc', ({ initialVerb, suggestedVerb, request, expectedVerb }) => {
    expect(cleanVerb(initialVerb, suggestedVerb ?? '', request ?? {})).toBe(expectedVerb);
  });
});

describe('cleanScope (upstream TestCleanScope)', () => {
  const cases: readonly { name: string; requestInfo: ScopeInfo; expectedScope: string }[] = [
    { name: 'empty scope', requestInfo: {}, expectedScope: '' },
    { name: 'resource scope', requestInfo: { name: 'my-resource', namespace: 'my-namespace', isResourceRequest: false }, expectedScope: 'resource' },
    { name: 'POST resource scope', requestInfo: { verb: 'create', namespace: 'my-namespace', isResourceRequest: false }, expectedScope: 'resource' },
    { name: 'namespace scope', requestInfo: { namespace: 'my-namespace', isResourceRequest: false }, expectedScope: 'namespace' },
    { name: 'cluster scope', requestInfo: { namespace: '', isResourceRequest: true }, expectedScope: 'cluster' },
  ];
  it.each(cases)('$name', ({ requestInfo, expectedScope }) => {
    expect(cleanScope(requestInfo)).toBe(expectedScope);
  });
});

// The label sets upstream's TestRecordDroppedRequests expects on apiserver_request_total (its
// code, 429, aside): the labels every recorded request gets from its route.
describe('requestLabels (upstream TestRecordDroppedRequests)', () => {
  const base = { query: new URLSearchParams(), contentType: undefined, subresource: '', namespace: '', name: '' };
  const cases: readonly { desc: string; request: ResourceRequest; want: Record<string, string> }[] = [
    {
      desc: 'list pods',
      request: { ...base, method: 'GET', group: '', version: 'v1', resource: 'pods' },
      want: { component: 'apiserver', dry_run: '', group: '', resource: 'pods', scope: 'cluster', subresource: '', verb: 'LIST', version: 'v1' },
    },
    {
      desc: 'post pods',
      request: { ...base, method: 'POST', group: '', version: 'v1', resource: 'pods' },
      want: { component: 'apiserver', dry_run: '', group: '', resource: 'pods', scope: 'resource', subresource: '', verb: 'POST', version: 'v1' },
    },
    {
      desc: 'dry-run patch job status',
      request: { ...base, method: 'PATCH', query: new URLSearchParams('dryRun=All'), group: 'batch', version: 'v1', resource: 'jobs', name: 'bar', subresource: 'status' },
      want: { component: 'apiserver', dry_run: 'All', group: 'batch', resource: 'jobs', scope: 'resource', subresource: 'status', verb: 'PATCH', version: 'v1' },
    },
  ];
  it.each(cases)('$desc', ({ request, want }) => {
    expect(requestLabels(request)).toEqual(want);
  });
});

describe('cleanDryRun', () => {
  const cases: readonly { name: string; query: string; want: string }[] = [
    { name: 'no dryRun', query: 'watch=true', want: '' },
    { name: 'All', query: 'dryRun=All', want: 'All' },
    { name: 'All twice is deduplicated', query: 'dryRun=All&dryRun=All', want: 'All' },
    { name: 'a value other than All is invalid', query: 'dryRun=All&dryRun=Some', want: 'invalid' },
    { name: 'an empty value is invalid', query: 'dryRun=', want: 'invalid' },
  ];
  it.each(cases)('$name', ({ query, want }) => {
    expect(cleanDryRun(new URLSearchParams(query))).toBe(want);
  });
});
