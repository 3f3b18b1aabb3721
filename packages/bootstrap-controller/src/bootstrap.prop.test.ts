// Properties of the bootstrap controller over random user operations in the simulator: the
// kubernetes Service comes back at the first IP, and the system namespaces come back.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import {
  addApiserver,
  advance,
  clearFailures,
  crashApiserver,
  createUserService,
  deleteUserObject,
  injectFailure,
  startApiserver,
  newSimulation,
  type FailureTarget,
  type Simulation,
} from './simulator/index.js';
import { namespaceNames, serviceIn } from './simulator/views.js';

const ENDPOINT_INTERVAL = 10_000;
const SYSTEM_NAMESPACES_INTERVAL = 60_000;
const APISERVERS = ['apiserver-a', 'apiserver-b'];
const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

// The network of each candidate range and its network + 1 (INV-IP-FIRST), written out rather than computed.
const RANGES = [
  { cidr: '10.96.0.0/24', first: '10.96.0.1' },
  { cidr: '10.96.0.0/16', first: '10.96.0.1' },
  { cidr: '172.20.64.0/20', first: '172.20.64.1' },
];

type Command =
  | { readonly op: 'delete-service' }
  | { readonly op: 'delete-endpoints' }
  | { readonly op: 'delete-slice' }
  | { readonly op: 'delete-namespace'; readonly name: string }
  | { readonly op: 'create-dynamic'; readonly n: number }
  | { readonly op: 'delete-user'; readonly n: number }
  | { readonly op: 'take-first-ip' }
  | { readonly op: 'release-first-ip' }
  | { readonly op: 'inject'; readonly target: FailureTarget; readonly reason: 'Conflict' | 'InternalError' }
  | { readonly op: 'restart'; readonly server: number }
  | { readonly op: 'wait'; readonly ms: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ op: 'delete-service' as const }),
  fc.constant({ op: 'delete-endpoints' as const }),
  fc.constant({ op: 'delete-slice' as const }),
  fc.record({ op: fc.constant('delete-namespace' as const), name: fc.constantFrom(...NAMESPACES) }, { noNullPrototype: true }),
  fc.record({ op: fc.constant('create-dynamic' as const), n: fc.integer({ min: 0, max: 5 }) }, { noNullPrototype: true }),
  fc.record({ op: fc.constant('delete-user' as const), n: fc.integer({ min: 0, max: 5 }) }, { noNullPrototype: true }),
  fc.constant({ op: 'take-first-ip' as const }),
  fc.constant({ op: 'release-first-ip' as const }),
  fc.record(
    {
      op: fc.constant('inject' as const),
      target: fc.constantFrom<FailureTarget>('Namespace', 'Service', 'Endpoints', 'EndpointSlice', 'RangeAllocation', 'Lease'),
      reason: fc.constantFrom('Conflict' as const, 'InternalError' as const),
    },
    { noNullPrototype: true },
  ),
  fc.record({ op: fc.constant('restart' as const), server: fc.integer({ min: 0, max: 1 }) }, { noNullPrototype: true }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 15_000 }) }, { noNullPrototype: true }),
);

function apply(sim: Simulation, command: Command, servers: number, first: string): Simulation {
  switch (command.op) {
    case 'delete-service':
      return deleteUserObject(sim, 'Service', 'default', 'kubernetes');
    case 'delete-endpoints':
      return deleteUserObject(sim, 'Endpoints', 'default', 'kubernetes');
    case 'delete-slice':
      return deleteUserObject(sim, 'EndpointSlice', 'default', 'kubernetes');
    case 'delete-namespace':
      return deleteUserObject(sim, 'Namespace', '', command.name);
    case 'create-dynamic':
      return createUserService(sim, { name: `web-${command.n}` });
    case 'delete-user':
      return deleteUserObject(sim, 'Service', 'default', `web-${command.n}`);
    case 'take-first-ip':
      return createUserService(sim, { name: 'squatter', clusterIP: first });
    case 'release-first-ip':
      return deleteUserObject(sim, 'Service', 'default', 'squatter');
    case 'inject':
      return injectFailure(sim, { target: command.target, reason: command.reason });
    case 'restart': {
      const name = APISERVERS[command.server % servers] ?? 'apiserver-a';
      // A failure still pending would hit the restarted apiserver's first repair, which is fatal by design.
      return startApiserver(clearFailures(crashApiserver(sim, name)), name);
    }
    case 'wait':
      return advance(sim, command.ms);
  }
}

function setUp(cidr: string, servers: number, seed: number, securePort: number): Simulation {
  let sim = newSimulation({ serviceClusterIPRange: cidr, seed });
  for (const [i, name] of APISERVERS.slice(0, servers).entries()) {
    sim = addApiserver(sim, name, { publicIP: `192.168.1.${10 + i}`, securePort });
    sim = startApiserver(sim, name);
  }
  return sim;
}

const scenarioArb = fc.record(
  {
    range: fc.constantFrom(...RANGES),
    servers: fc.integer({ min: 1, max: 2 }),
    // --secure-port: the default and another.
    securePort: fc.constantFrom(6443, 8443),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    commands: fc.array(commandArb, { maxLength: 30 }),
  },
  { noNullPrototype: true },
);
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** The apiservers started, the commands applied, and no injected failure left pending. */
function afterCommands({ range, servers, securePort, seed, commands }: Scenario): Simulation {
  let sim = setUp(range.cidr, servers, seed, securePort);
  for (const command of commands) sim = apply(sim, command, servers, range.first);
  return clearFailures(sim);
}

test.prop([scenarioArb])(
  'INV-BOOT-INVINCIBLE: after any deletes, dynamic Services, failures and ticks, the next endpoint interval restores default/kubernetes at network + 1 with https 443 → the secure port, or, while a user Service holds that IP, logs upstream\'s error on every pass',
  (scenario) => {
    const { range, securePort } = scenario;
    let sim = afterCommands(scenario);
    const before = sim.records.length;
    sim = advance(sim, ENDPOINT_INTERVAL);

    const squatter = serviceIn(sim, 'default', 'squatter');
    if (squatter?.spec?.clusterIP === range.first) {
      expect(serviceIn(sim, 'default', 'kubernetes')).toBeUndefined();
      // upstream: alloc.go "failed to allocate IP %v: %v", field.Invalid on spec.clusterIPs, errors.NewInvalid; controller.go "unable to sync kubernetes service: %v".
      const expected = `unable to sync kubernetes service: Service "kubernetes" is invalid: spec.clusterIPs: Invalid value: []string{"${range.first}"}: failed to allocate IP ${range.first}: provided IP is already allocated`;
      const errorsAfter = () => sim.records.slice(before).filter((r) => r.kind === 'log' && r.message === expected).length;
      expect(errorsAfter()).toBeGreaterThanOrEqual(1);
      // It keeps retrying, once per pass, and takes the IP as soon as it is free.
      const once = errorsAfter();
      sim = advance(sim, ENDPOINT_INTERVAL);
      expect(errorsAfter()).toBeGreaterThan(once);
      sim = advance(deleteUserObject(sim, 'Service', 'default', 'squatter'), ENDPOINT_INTERVAL);
    }

    const service = serviceIn(sim, 'default', 'kubernetes');
    expect(service?.spec?.clusterIP).toBe(range.first);
    expect(service?.spec?.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }]);
    expect(service?.spec?.type).toBe('ClusterIP');
    expect(service?.spec?.selector).toBeUndefined();
    expect(service?.metadata.labels).toEqual({ provider: 'kubernetes', component: 'apiserver' });
  },
);

test.prop([scenarioArb])(
  'INV-BOOT-NAMESPACES: after any deletes and failures, default exists after the next endpoint interval and all four system namespaces after the next namespaces interval',
  (scenario) => {
    let sim = advance(afterCommands(scenario), ENDPOINT_INTERVAL);
    expect(namespaceNames(sim)).toContain('default');
    sim = advance(sim, SYSTEM_NAMESPACES_INTERVAL - ENDPOINT_INTERVAL);
    expect(namespaceNames(sim)).toEqual(expect.arrayContaining(NAMESPACES));
  },
);
