// INV-CP-FUZZ: hostile requests against a running control plane (`kubesvc up`'s: SQLite store,
// bootstrap controller, namespace, endpoints, EndpointSlice and mirroring controllers, simulated
// kubelet, the HTTP API on 127.0.0.1), seeded with a namespace of each kind and a Service of
// each type, never delete what they did not name, never crash or wedge it, and never leave two
// Services on one ClusterIP or NodePort or a ClusterIP outside the range. Each request, one at
// a time (so each answer and each change is the request's own):
// - gets an answer below 500, and an answer of 400 or more is a Status whose code is the HTTP
//   status;
// - gets 401 exactly when kube-apiserver's bearer-token authenticator would refuse its
//   Authorization header, and 403 when it offers no token (system:anonymous) and its path is
//   not one of the public info paths;
// - `DELETE /api/v1/namespaces` gets 405 and a delete of default, kube-system or kube-public 403
//   (NamespaceLifecycle), and a watch with a negative timeoutSeconds ends by itself;
// - removes no tracked object (namespace, node, Service, Endpoints, pod) that no successful
//   DELETE so far named, as its raw path spelt it (a `..` segment names an object called `..`);
// - leaves the Services' allocations sound (no new violation of serviceViolations), and
//   Object.prototype as it was.
// After the run: the kubernetes Service is back (the bootstrap controller restores a deleted one;
// one a request rewrote stays as written, as upstream's does, and comes back once deleted), nothing
// is missing that was not named, the allocations are sound, a repair pass finds no duplicate,
// out-of-range or unallocated ClusterIP or NodePort, every ClusterIP has an IPAddress naming
// its Service (the IPAddress allocator, the default), and /healthz and a kubectl-style Table
// list still answer. A second client polls /healthz every 10 ms throughout; its longest wait is
// printed, not asserted.
//
// KUBESVC_FUZZ_REQUESTS sets the count (default 2,000); a time limit stops a loaded machine
// early, and the test then asserts a quarter of the count was sent.
import { fc } from '@fast-check/vitest';
import type { IPAddress, Service } from '@kubesvc/api-types';
import { describeRequest, hostileRequestArb, IMMORTAL_NAMESPACES, sendRaw, upstreamAuthentication, type HostileRequest, type RawResponse } from '@kubesvc/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NO_LEAKS, repairOnce } from '@kubesvc/apiserver';
import {
  FUZZ_TOKEN,
  isNamed,
  missingIPAddresses,
  namedByDelete,
  objectKey,
  REPAIR_PROBLEMS,
  seedWorld,
  serviceViolations,
  startFuzzCluster,
  takeSnapshot,
  vanished,
  type FuzzCluster,
  type Naming,
  type Snapshot,
} from './control-plane-fuzz.fixtures.js';

const REQUESTS = Number(process.env['KUBESVC_FUZZ_REQUESTS'] ?? '2000');
// On a quiet machine 2,000 requests take well under this; a loaded one stops here.
const TIME_LIMIT_MS = 240_000;
// No answer at all within this is a wedged server, reported as a failure of the request.
const ANSWER_TIMEOUT_MS = 60_000;
// A watch still streaming after this is cut by the client (it has shown it answers).
const WATCH_READ_MS = 150;
// A watch that must end by itself (negative timeoutSeconds) is given this long before it counts as streaming for ever.
const WATCH_MUST_END_MS = 10_000;
// Re-create what deletes took from the seeded world every so many requests.
const RESEED_EVERY = 150;

let cluster: FuzzCluster | undefined;

beforeAll(async () => {
  cluster = await startFuzzCluster();
}, 120_000);

afterAll(async () => {
  await cluster?.close();
}, 60_000);

function mustCluster(): FuzzCluster {
  if (cluster === undefined) throw new Error('the control plane did not start');
  return cluster;
}

/** Polls GET /healthz every 10 ms on its own connection until stopped; keeps the longest wait. */
function startHealthPoller(c: FuzzCluster): { stop: () => Promise<void>; longestMs: () => number; polls: () => number; failures: string[] } {
  let running = true;
  let longest = 0;
  let count = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await sendRaw(c.host, c.port, { method: 'GET', path: '/healthz' }, { timeoutMs: ANSWER_TIMEOUT_MS });
        if (res.status !== 200 && failures.length < 5) failures.push(`/healthz answered ${res.status}: ${res.text.slice(0, 200)}`);
      } catch (error) {
        if (failures.length < 5) failures.push(`/healthz: ${error instanceof Error ? error.message : String(error)}`);
      }
      longest = Math.max(longest, performance.now() - t0);
      count++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
    longestMs: () => longest,
    polls: () => count,
    failures,
  };
}

/** Sends the request; for a read-modify-write, first reads the object's resourceVersion into the body. */
async function send(c: FuzzCluster, r: HostileRequest): Promise<RawResponse> {
  let body = r.body;
  if (r.withResourceVersion === true && body !== undefined) {
    const got = await sendRaw(c.host, c.port, { method: 'GET', path: r.path, headers: { Authorization: `Bearer ${FUZZ_TOKEN}` } }, { timeoutMs: ANSWER_TIMEOUT_MS });
    if (got.status === 200) {
      const rv = (JSON.parse(got.text) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      const parsed = JSON.parse(body) as { metadata?: Record<string, unknown> };
      if (rv !== undefined && parsed.metadata !== undefined) {
        parsed.metadata['resourceVersion'] = rv;
        body = JSON.stringify(parsed);
      }
    }
  }
  const headers: Record<string, string> = {};
  if (r.authorization !== undefined) headers['Authorization'] = r.authorization;
  if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
  if (r.accept !== undefined) headers['Accept'] = r.accept;
  const mustEnd = r.watch?.timeoutSeconds !== undefined && r.watch.timeoutSeconds < 0;
  const streamMs = r.watch === undefined ? undefined : mustEnd ? WATCH_MUST_END_MS : WATCH_READ_MS;
  const hasBody = r.method !== 'GET' && r.method !== 'HEAD';
  return sendRaw(c.host, c.port, { method: r.method, path: r.path, headers, ...(hasBody && body !== undefined ? { body } : {}) }, { timeoutMs: ANSWER_TIMEOUT_MS, ...(streamMs === undefined ? {} : { streamMs }), keepChars: 16 * 1024 * 1024 });
}

// upstream (v1.33): plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (system:public-info-viewer)
const PUBLIC_INFO_PATHS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

const NAMESPACE_FORBIDDEN = (ns: string): string => `namespaces "${ns}" is forbidden: this namespace may not be deleted`;

/** What upstream answers this request, where this test knows it exactly. */
function knownAnswer(r: HostileRequest): { code: number; message?: string } | undefined {
  const who = upstreamAuthentication(r.authorization, FUZZ_TOKEN);
  if (who === 'invalid') return { code: 401 };
  // system:anonymous may read the public info paths only (RBAC's system:public-info-viewer).
  if (who === 'anonymous' && !PUBLIC_INFO_PATHS.includes(r.path.split('?')[0] ?? '')) return { code: 403 };
  if (who === 'anonymous') return undefined;
  const noOptions = !r.path.includes('?') && (r.body === undefined || r.body === '');
  if (r.method === 'DELETE' && noOptions) {
    // upstream: pkg/registry/core/namespace/storage/storage.go (no DeleteCollection: 405)
    if (r.path === '/api/v1/namespaces') return { code: 405 };
    // upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go.
    // DeleteResource negotiates the answer's media type before admission runs, so an Accept it
    // cannot serve (text/html) gets 406 first; only the plain ones are known to reach admission.
    // upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go (DeleteResource)
    const ns = /^\/api\/v1\/namespaces\/([a-z-]+)$/.exec(r.path)?.[1];
    const plainAccept = r.accept === undefined || r.accept === '*/*' || r.accept === 'application/vnd.kubernetes.protobuf';
    if (ns !== undefined && IMMORTAL_NAMESPACES.includes(ns) && plainAccept) return { code: 403, message: NAMESPACE_FORBIDDEN(ns) };
  }
  return undefined;
}

// The strategic-merge failures kube-apiserver passes on as plain Go errors: a 500 Status with
// the text and no reason (registry/strategic-merge-patch.ts mirrors them). Every other 5xx is
// this server's own.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (interpretStrategicMergePatchError),
//           staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
const UPSTREAM_PLAIN_ERRORS: readonly RegExp[] = [
  /^expected a \S+, but received a /,
  /^map: .* does not contain declared merge key: /s,
  /^unknown patch type: /,
  /^list element types are not identical: /,
  /^no elements in any of the given slices$/,
  /^The order in patch list:/,
  /^value for key \S+ is not a map$/,
  /^cannot merge lists without merge key for /,
  /^merging lists cannot yet be specified in the patch$/,
];

function isUpstreamPlainError(r: HostileRequest, res: RawResponse): boolean {
  if (res.status !== 500 || r.method !== 'PATCH' || !(r.contentType ?? '').startsWith('application/strategic-merge-patch+json')) return false;
  try {
    const status = JSON.parse(res.text) as { reason?: string; message?: string };
    return status.reason === undefined && UPSTREAM_PLAIN_ERRORS.some((re) => re.test(status.message ?? ''));
  } catch {
    return false;
  }
}

function prototypeState(): string {
  return JSON.stringify([Object.getOwnPropertyNames(Object.prototype).sort(), Object.getOwnPropertyNames(Array.prototype).sort(), (({}) as Record<string, unknown>)['polluted'] ?? null]);
}

function kubernetesIn(snapshot: Snapshot): Service | undefined {
  return snapshot.services.find((s) => s.metadata?.namespace === 'default' && s.metadata.name === 'kubernetes');
}

/** The Service as the bootstrap controller writes it: ClusterIP at the first address, 443 → 6443, no deletion pending. */
function isBootstrapShaped(s: Service | undefined): boolean {
  return s?.spec?.type === 'ClusterIP' && s.spec.clusterIP === '10.96.0.1' && s.metadata?.deletionTimestamp === undefined && JSON.stringify(s.spec.ports?.map((p) => [p.port, p.targetPort])) === '[[443,6443]]';
}

/** Polls the registry for default/kubernetes for up to 90 s. */
async function pollKubernetes(c: FuzzCluster): Promise<Service | undefined> {
  for (let i = 0; i < 900; i++) {
    const got = await c.registry.get<Service>('services', 'default', 'kubernetes');
    if (got.ok) return got.value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

/** What keeps the kubernetes Service away: itself, who holds the first IP, what the control plane last complained of. */
async function kubernetesDiagnosis(c: FuzzCluster, kubernetes: Service | undefined): Promise<string> {
  const holder = await c.registry.get<IPAddress>('ipaddresses', '', '10.96.0.1');
  const services = await c.registry.list<Service>('services');
  const onFirst = services.ok ? services.value.items.filter((s) => s.spec?.clusterIP === '10.96.0.1').map((s) => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`) : [];
  return (
    `default/kubernetes: ${JSON.stringify(kubernetes)}\nIPAddress 10.96.0.1: ${holder.ok ? JSON.stringify(holder.value) : holder.error.message}\n` +
    `Services on 10.96.0.1: ${JSON.stringify(onFirst)}\nlast warnings:\n  ${c.recentWarnings.join('\n  ')}`
  );
}

it(
  'INV-CP-FUZZ: hostile requests against a running control plane delete only what they name, get < 500 with a Status, and leave the allocations sound',
  { timeout: TIME_LIMIT_MS + 180_000 },
  async () => {
    const c = mustCluster();
    const poller = startHealthPoller(c);
    const start = await takeSnapshot(c.registry);
    const pristine = prototypeState();
    const named: Naming[] = [];
    const recent: string[] = [];
    const byStatus = new Map<number, number>();
    const byFamily = new Map<string, number>();
    let sent = 0;
    // The last successful request that left default/kubernetes changed (for the check at the end).
    let kubernetesWrittenBy: string | undefined;
    let before: Snapshot = start;
    let violationsBefore = new Set(serviceViolations(start.services));
    try {
      await fc.assert(
        fc.asyncProperty(hostileRequestArb({ token: FUZZ_TOKEN }), async (r) => {
          if (sent > 0 && sent % RESEED_EVERY === 0) {
            await seedWorld(c.registry);
            before = await takeSnapshot(c.registry);
            violationsBefore = new Set(serviceViolations(before.services));
          }
          const line = describeRequest(r);
          recent.push(line);
          if (recent.length > 5) recent.shift();
          const context = `request: ${line}\n(the last requests, oldest first:\n  ${recent.join('\n  ')})`;
          let res: RawResponse;
          try {
            res = await send(c, r);
          } catch (error) {
            throw new Error(`${error instanceof Error ? error.message : String(error)}\n${context}`, { cause: error });
          }
          sent++;
          byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
          byFamily.set(r.family, (byFamily.get(r.family) ?? 0) + 1);
          const answer = `${res.status} ${res.text.slice(0, 400)}`;
          // The store as this request left it, taken before any assertion so that a failure (and
          // fast-check's shrinking after it) compares the next request against the right state.
          const after = await takeSnapshot(c.registry);
          const writtenKubernetes = kubernetesIn(after);
          if (res.status < 300 && r.method !== 'DELETE' && r.method !== 'GET' && writtenKubernetes !== undefined && writtenKubernetes.metadata?.resourceVersion !== kubernetesIn(before)?.metadata?.resourceVersion) kubernetesWrittenBy = line;
          if (res.status >= 200 && res.status < 300 && r.method === 'DELETE') named.push(...namedByDelete(r.path, before));
          const unnamed = vanished(before, after).filter((o) => !isNamed(o, named));
          const violations = serviceViolations(after.services);
          const newViolations = violations.filter((v) => !violationsBefore.has(v));
          before = after;
          violationsBefore = new Set(violations);

          if (!isUpstreamPlainError(r, res)) expect(res.status, `a 5xx\n${context}\nanswer: ${answer}`).toBeLessThan(500);
          if (res.status >= 400 && r.method !== 'HEAD') {
            let status: { kind?: unknown; code?: unknown } | undefined;
            try {
              status = JSON.parse(res.text) as { kind?: unknown; code?: unknown };
            } catch {
              status = undefined;
            }
            expect({ kind: status?.kind, code: status?.code }, `an error that is not a Status with its code\n${context}\nanswer: ${answer}`).toEqual({ kind: 'Status', code: res.status });
          }
          const known = knownAnswer(r);
          if (known !== undefined) {
            expect(res.status, `upstream answers ${known.code}\n${context}\nanswer: ${answer}`).toBe(known.code);
            if (known.message !== undefined) expect((JSON.parse(res.text) as { message?: string }).message, context).toBe(known.message);
          } else {
            expect(res.status, `kube-apiserver accepts this Authorization header\n${context}\nanswer: ${answer}`).not.toBe(401);
            if (upstreamAuthentication(r.authorization, FUZZ_TOKEN) === 'user') expect(res.text, `a request with the token is not taken for system:anonymous\n${context}\nanswer: ${answer}`).not.toContain('system:anonymous');
          }
          if (r.watch?.timeoutSeconds !== undefined && r.watch.timeoutSeconds < 0 && res.status === 200) {
            expect(res.ended, `a watch with timeoutSeconds=${r.watch.timeoutSeconds} still streamed after ${WATCH_MUST_END_MS} ms (upstream's timer fires at once)\n${context}`).toBe('complete');
          }

          expect(
            unnamed.map((o) => o.key),
            `objects gone that no successful DELETE named (a controller may act a little later than the request that caused it)\n${context}\nanswer: ${answer}`,
          ).toEqual([]);
          expect(newViolations, `the Services' allocations broke\n${context}\nanswer: ${answer}`).toEqual([]);
          expect(prototypeState(), `Object.prototype changed\n${context}`).toBe(pristine);
        }),
        { numRuns: REQUESTS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
      );
    } finally {
      await poller.stop();
      console.info(
        `INV-CP-FUZZ: ${sent} of ${REQUESTS} requests; by status ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}; by family ${JSON.stringify(Object.fromEntries(byFamily))}; ` +
          `/healthz polled ${poller.polls()} times, longest wait ${poller.longestMs().toFixed(1)} ms; control-plane errors logged: ${c.errors.length}${c.errors.length > 0 ? ` (first: ${c.errors[0] ?? ''})` : ''}`,
      );
    }
    expect(poller.failures, 'GET /healthz during the run').toEqual([]);
    expect(sent, `requests sent within ${TIME_LIMIT_MS} ms`).toBeGreaterThanOrEqual(Math.ceil(REQUESTS / 4));

    // The kubernetes Service comes back: the bootstrap controller's interval here is 200 ms. With
    // the IPAddress allocator it may wait out RepairIPAddress's orphan grace (60 s): when a
    // request deleted the Service while the repair loop's cache still held it, the loop put its
    // IPAddress back (ClusterIPNotAllocated), and 10.96.0.1 stays taken until the loop deletes
    // that orphan, as upstream's does.
    let kubernetes = await pollKubernetes(c);
    if (!isBootstrapShaped(kubernetes)) {
      // A default/kubernetes that a request wrote (another ClusterIP, another type, a finalizer)
      // stays as written: after its first pass upstream's controller only creates the Service,
      // never resets one that exists (pkg/controlplane/controller/kubernetesservice/controller.go,
      // CreateOrUpdateMasterServiceIfNeeded with reconcile=false). That must be a request's doing;
      // then the test does what an operator would, deletes it, and the controller makes it anew.
      const diagnosis = await kubernetesDiagnosis(c, kubernetes);
      expect(kubernetesWrittenBy, `default/kubernetes is not the controller's, and no request wrote it\n${diagnosis}`).toBeDefined();
      const unblocked = await c.registry.patch('services', 'default', 'kubernetes', 'application/merge-patch+json', '{"metadata":{"finalizers":null}}');
      expect(unblocked.ok || unblocked.error._tag === 'NotFound', `clearing the finalizers of default/kubernetes\n${diagnosis}`).toBe(true);
      const deleted = await c.registry.delete('services', 'default', 'kubernetes');
      expect(deleted.ok || deleted.error._tag === 'NotFound', `deleting default/kubernetes\n${diagnosis}`).toBe(true);
      named.push({ kind: 'object', key: objectKey('services', 'default', 'kubernetes') });
      kubernetes = await pollKubernetes(c);
      if (!isBootstrapShaped(kubernetes)) console.info(await kubernetesDiagnosis(c, kubernetes));
    }
    expect(kubernetes?.spec?.clusterIP, 'default/kubernetes, polled for 90 s').toBe('10.96.0.1');
    expect(kubernetes?.spec?.ports?.map((p) => [p.port, p.targetPort]), 'default/kubernetes ports').toEqual([[443, 6443]]);

    await c.plane.idle();
    const end = await takeSnapshot(c.registry);
    expect(
      vanished(start, end)
        .filter((o) => !isNamed(o, named))
        .map((o) => o.key),
      'objects of the seeded world gone that no successful DELETE named',
    ).toEqual([]);
    expect(serviceViolations(end.services), 'the Services at the end').toEqual([]);
    // The IPAddress allocator (the default): every ClusterIP is an IPAddress naming its Service.
    // Polled for up to 30 s (the repair loop's periodic pass is every 2 s here): an event-driven
    // sync may have deleted an IPAddress as a wrong reference from a cache that had not seen the
    // Service's update yet, and the next pass puts it back (ClusterIPNotAllocated).
    let missing: string[] = [];
    for (let i = 0; i < 300; i++) {
      const ipAddresses = await c.registry.list<IPAddress>('ipaddresses');
      if (!ipAddresses.ok) throw new Error(ipAddresses.error.message);
      const services = await c.registry.list<Service>('services');
      if (!services.ok) throw new Error(services.error.message);
      missing = missingIPAddresses(services.value.items, ipAddresses.value.items);
      if (missing.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(missing, 'the ClusterIPs without their IPAddress at the end, polled for 30 s').toEqual([]);
    const repair = await repairOnce(c.store, c.registry.net, NO_LEAKS);
    expect(repair.error, 'the repair run').toBeUndefined();
    // The repair loop reads the node ports of every Service, as upstream's does, and an
    // ExternalName Service may carry nodePort values that nothing allocated (upstream's
    // validation lets it). A node-port finding is a fault only where the Services that
    // allocate node ports (NodePort, LoadBalancer) explain it: a port one of them holds that
    // is missing from the allocator or out of range, or a port two of them hold.
    const holders = new Map<number, number>();
    for (const s of end.services) {
      if (s.spec?.type !== 'NodePort' && s.spec?.type !== 'LoadBalancer') continue;
      for (const p of s.spec.ports ?? []) if ((p.nodePort ?? 0) !== 0) holders.set(p.nodePort ?? 0, (holders.get(p.nodePort ?? 0) ?? 0) + 1);
    }
    const faults = repair.events.filter((e) => {
      if (!REPAIR_PROBLEMS.has(e.reason)) return false;
      const port = /^Port (-?\d+) /.exec(e.message);
      if (port === null) return true;
      const held = holders.get(Number(port[1])) ?? 0;
      return e.reason === 'PortAlreadyAllocated' ? held > 1 : held > 0;
    });
    expect(faults).toEqual([]);

    const health = await sendRaw(c.host, c.port, { method: 'GET', path: '/healthz' }, { timeoutMs: ANSWER_TIMEOUT_MS });
    expect([health.status, health.text]).toEqual([200, 'ok']);
    const table = await sendRaw(
      c.host,
      c.port,
      { method: 'GET', path: '/api/v1/namespaces/default/services?limit=500', headers: { Authorization: `Bearer ${FUZZ_TOKEN}`, Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } },
      { timeoutMs: ANSWER_TIMEOUT_MS },
    );
    expect(table.status, table.text.slice(0, 400)).toBe(200);
    const rows = (JSON.parse(table.text) as { kind?: string; rows?: { cells: unknown[] }[] }).rows ?? [];
    expect(rows.map((row) => row.cells[0])).toContain('kubernetes');
    expect(prototypeState()).toBe(pristine);
  },
);
