// Test vectors transcribed from upstream (v1.33): staging/src/k8s.io/endpointslice/topologycache/
// topologycache_test.go (TestAddHints, TestSetNodes), utils_test.go (Test_redistributeHints,
// Test_getGivingAndReceivingZones, Test_getHintsByZone) and sliceinfo_test.go
// (Test_getTotalReadyEndpoints). Slices are written as their endpoints, the only field the
// cases set; a null expectation is upstream's nil; totalReadyCases' slices are upstream's
// sliceWithNEndpoints(ready, unready).

export const addHintsCases = [
  {
    name: 'empty',
    cpuRatiosByZone: null,
    addressType: 'IPv4',
    toCreate: [],
    toUpdate: [],
    unchanged: [],
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [],
    expectedSlicesToUpdate: [],
    expectedEvents: [
      {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
      },
    ],
  },
  {
    name: 'slice to create, no zone ratios',
    cpuRatiosByZone: null,
    addressType: 'IPv4',
    toCreate: [[{ addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } }]],
    toUpdate: [],
    unchanged: [],
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [[{ addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } }]],
    expectedSlicesToUpdate: [],
    expectedEvents: [
      {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
      },
    ],
  },
  {
    name: 'slice to create with 2 endpoints, zone ratios require 3',
    cpuRatiosByZone: { 'zone-a': 0.3, 'zone-b': 0.4, 'zone-c': 0.3 },
    addressType: 'IPv4',
    toCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', conditions: { ready: true } },
      ],
    ],
    toUpdate: [],
    unchanged: [],
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', conditions: { ready: true } },
      ],
    ],
    expectedSlicesToUpdate: [],
    expectedEvents: [{ type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Insufficient number of endpoints' }],
  },
  {
    name: 'slice to create with 2 endpoints, zone ratios only require 2',
    cpuRatiosByZone: { 'zone-a': 0.45, 'zone-b': 0.55 },
    addressType: 'IPv4',
    toCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', conditions: { ready: true } },
      ],
    ],
    toUpdate: [],
    unchanged: [],
    expectedEndpointsByAddrType: { IPv4: { 'zone-a': 1, 'zone-b': 1 } },
    expectedSlicesToCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
      ],
    ],
    expectedSlicesToUpdate: [],
    expectedEvents: [{ type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled' }],
  },
  {
    name: 'slice to create with 2 ready, 1 unready, 1 unknown endpoints, zone ratios only require 2',
    cpuRatiosByZone: { 'zone-a': 0.45, 'zone-b': 0.55 },
    addressType: 'IPv4',
    toCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', conditions: { ready: true } },
        { addresses: ['10.1.2.5'], zone: 'zone-b', conditions: { ready: false } },
        { addresses: ['10.1.2.6'], zone: 'zone-b' },
      ],
    ],
    toUpdate: [],
    unchanged: [],
    expectedEndpointsByAddrType: { IPv4: { 'zone-a': 1, 'zone-b': 1 } },
    expectedSlicesToCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
        { addresses: ['10.1.2.5'], zone: 'zone-b', conditions: { ready: false } },
        { addresses: ['10.1.2.6'], zone: 'zone-b' },
      ],
    ],
    expectedSlicesToUpdate: [],
    expectedEvents: [{ type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled' }],
  },
  {
    name: 'slices to create and update within 3 zone threshold',
    cpuRatiosByZone: { 'zone-a': 0.35, 'zone-b': 0.35, 'zone-c': 0.3 },
    addressType: 'IPv4',
    toCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', conditions: { ready: true } },
      ],
      [
        { addresses: ['10.1.3.3'], zone: 'zone-c', conditions: { ready: true } },
        { addresses: ['10.1.3.4'], zone: 'zone-c', conditions: { ready: true } },
        { addresses: ['10.1.3.4'], zone: 'zone-a', conditions: { ready: true } },
      ],
    ],
    toUpdate: [
      [
        { addresses: ['10.2.2.3'], zone: 'zone-a', conditions: { ready: true } },
        { addresses: ['10.2.2.4'], zone: 'zone-a', conditions: { ready: true } },
      ],
      [
        { addresses: ['10.2.3.3'], zone: 'zone-b', conditions: { ready: true } },
        { addresses: ['10.2.3.4'], zone: 'zone-c', conditions: { ready: true } },
        { addresses: ['10.2.3.4'], zone: 'zone-a', conditions: { ready: true } },
      ],
    ],
    unchanged: [],
    expectedEndpointsByAddrType: { IPv4: { 'zone-a': 4, 'zone-b': 3, 'zone-c': 3 } },
    expectedSlicesToCreate: [
      [
        { addresses: ['10.1.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
        { addresses: ['10.1.2.4'], zone: 'zone-b', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
      ],
      [
        { addresses: ['10.1.3.3'], zone: 'zone-c', hints: { forZones: [{ name: 'zone-c' }] }, conditions: { ready: true } },
        { addresses: ['10.1.3.4'], zone: 'zone-c', hints: { forZones: [{ name: 'zone-c' }] }, conditions: { ready: true } },
        { addresses: ['10.1.3.4'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      ],
    ],
    expectedSlicesToUpdate: [
      [
        { addresses: ['10.2.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
        { addresses: ['10.2.2.4'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      ],
      [
        { addresses: ['10.2.3.3'], zone: 'zone-b', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
        { addresses: ['10.2.3.4'], zone: 'zone-c', hints: { forZones: [{ name: 'zone-c' }] }, conditions: { ready: true } },
        { addresses: ['10.2.3.4'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      ],
    ],
    expectedEvents: [{ type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled' }],
  },
];

export const setNodesCases = [
  { name: 'empty', nodes: [], expectSufficientNodeInfo: false, expectedCPUByZone: null, expectedRatios: null },
  {
    name: 'single node',
    nodes: [{ zone: 'zone-a', cpu: '1000m', ready: 'True' }],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: 'single zone',
    nodes: [{ zone: 'zone-a', cpu: '1000m', ready: 'True' }, { zone: 'zone-a', cpu: '1000m', ready: 'True' }],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones',
    nodes: [{ zone: 'zone-a', cpu: '1000m', ready: 'True' }, { zone: 'zone-b', cpu: '1000m', ready: 'True' }],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: { 'zone-a': '1', 'zone-b': '1' },
    expectedRatios: { 'zone-a': 0.5, 'zone-b': 0.5 },
  },
  {
    name: '2 zones, unready node in 1, ready node in 1',
    nodes: [{ zone: 'zone-a', cpu: '1000m', ready: 'False' }, { zone: 'zone-b', cpu: '1000m', ready: 'True' }],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones, control plane node in 1, ready node in 1',
    nodes: [
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1000m', ready: 'True', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    ],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones, unready node in 1, ready node in 2',
    nodes: [
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1000m', ready: 'False' },
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: { 'zone-a': '1', 'zone-b': '1' },
    expectedRatios: { 'zone-a': 0.5, 'zone-b': 0.5 },
  },
  {
    name: '2 zones, control plane node in 1, ready node in 2',
    nodes: [
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1000m', ready: 'True', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: { 'zone-a': '1', 'zone-b': '1' },
    expectedRatios: { 'zone-a': 0.5, 'zone-b': 0.5 },
  },
  {
    name: '3 zones, 4 nodes in 1, 2 nodes in 1, 1 node in 1',
    nodes: [
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-a', cpu: '1000m', ready: 'True' },
      { zone: 'zone-a', cpu: '2000m', ready: 'True' },
      { zone: 'zone-b', cpu: '3000m', ready: 'True' },
      { zone: 'zone-b', cpu: '1500m', ready: 'True' },
      { zone: 'zone-c', cpu: '500m', ready: 'True' },
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: { 'zone-a': '5000m', 'zone-b': '4500m', 'zone-c': '500m' },
    expectedRatios: { 'zone-a': 0.5, 'zone-b': 0.45, 'zone-c': 0.05 },
  },
];

export const redistributeCases = [
  { name: 'empty', slices: [], givingZones: {}, receivingZones: {}, expectedRedistributions: {} },
  {
    name: 'single endpoint',
    slices: [[{ zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } }]],
    givingZones: { 'zone-a': 1 },
    receivingZones: { 'zone-b': 1 },
    expectedRedistributions: { 'zone-a': -1, 'zone-b': 1 },
  },
  {
    name: 'endpoints from 1 zone redistributed to 2 other zones',
    slices: [
      [
        { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
        { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
        { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      ],
    ],
    givingZones: { 'zone-a': 2 },
    receivingZones: { 'zone-b': 1, 'zone-c': 1 },
    expectedRedistributions: { 'zone-a': -2, 'zone-b': 1, 'zone-c': 1 },
  },
];

export const givingCases = [
  { name: 'empty', allocations: {}, allocatedHintsByZone: {}, expectedGivingZones: {}, expectedReceivingZones: {} },
  {
    name: 'simple allocation with no need for rebalancing',
    allocations: { 'zone-a': { desired: 1.2 }, 'zone-b': { desired: 1.1 }, 'zone-c': { desired: 1.0 } },
    allocatedHintsByZone: { 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 },
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'preference for same zone even when giving an extra endpoint would result in slightly better distribution',
    allocations: { 'zone-a': { desired: 5.1 }, 'zone-b': { desired: 5.1 }, 'zone-c': { desired: 5.8 } },
    allocatedHintsByZone: { 'zone-a': 16 },
    expectedGivingZones: { 'zone-a': 10 },
    expectedReceivingZones: { 'zone-b': 5, 'zone-c': 5 },
  },
  {
    name: 'when 2 zones need < 1 endpoint, give to zone that needs endpoint most',
    allocations: { 'zone-a': { desired: 5.0 }, 'zone-b': { desired: 5.6 }, 'zone-c': { desired: 5.4 } },
    allocatedHintsByZone: { 'zone-a': 16 },
    expectedGivingZones: { 'zone-a': 11 },
    expectedReceivingZones: { 'zone-b': 6, 'zone-c': 5 },
  },
  {
    name: 'when 2 zones have extra endpoints, give from zone with most extra',
    allocations: { 'zone-a': { desired: 5.0 }, 'zone-b': { desired: 5.6 }, 'zone-c': { desired: 5.4 } },
    allocatedHintsByZone: { 'zone-b': 8, 'zone-c': 8 },
    expectedGivingZones: { 'zone-b': 2, 'zone-c': 3 },
    expectedReceivingZones: { 'zone-a': 5 },
  },
  {
    name: 'ensure function can handle unexpected data (more allocated than allocations)',
    allocations: { 'zone-a': { desired: 5.0 }, 'zone-b': { desired: 5.0 }, 'zone-c': { desired: 5.0 } },
    allocatedHintsByZone: { 'zone-a': 6, 'zone-b': 6, 'zone-c': 6 },
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'ensure function can handle unexpected data (negative allocations)',
    allocations: { 'zone-a': { desired: -5.0 }, 'zone-b': { desired: -5.0 }, 'zone-c': { desired: -5.0 } },
    allocatedHintsByZone: { 'zone-a': 6, 'zone-b': 6, 'zone-c': 6 },
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'ensure function can handle unexpected data (negative allocated)',
    allocations: { 'zone-a': { desired: 5.0 }, 'zone-b': { desired: 5.0 }, 'zone-c': { desired: 5.0 } },
    allocatedHintsByZone: { 'zone-a': -4, 'zone-b': -3, 'zone-c': -2 },
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'ensure function can handle unexpected data (negative for 1 zone)',
    allocations: { 'zone-a': { desired: 5.0 }, 'zone-b': { desired: 5.0 }, 'zone-c': { desired: 5.0 } },
    allocatedHintsByZone: { 'zone-a': -40, 'zone-b': 20, 'zone-c': 20 },
    expectedGivingZones: { 'zone-b': 15, 'zone-c': 15 },
    expectedReceivingZones: { 'zone-a': 30 },
  },
];

export const hintsByZoneCases = [
  { name: 'empty', slice: [], allocatedHintsByZone: {}, allocations: {}, expectedHintsByZone: {} },
  {
    name: 'single zone hint',
    slice: [{ zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } }],
    allocatedHintsByZone: { 'zone-a': 1 },
    allocations: { 'zone-a': { maximum: 3 } },
    expectedHintsByZone: { 'zone-a': 1 },
  },
  {
    name: 'single zone hint with 1 unready endpoint and 1 unknown endpoint',
    slice: [
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: false } },
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] } },
    ],
    allocatedHintsByZone: { 'zone-a': 1 },
    allocations: { 'zone-a': { maximum: 3 } },
    expectedHintsByZone: { 'zone-a': 1 },
  },
  {
    name: 'multiple zone hints',
    slice: [
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
      { zone: 'zone-b', hints: { forZones: [{ name: 'zone-b' }] }, conditions: { ready: true } },
    ],
    allocatedHintsByZone: { 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 },
    allocations: { 'zone-a': { maximum: 3 }, 'zone-b': { maximum: 3 }, 'zone-c': { maximum: 3 } },
    expectedHintsByZone: { 'zone-a': 1, 'zone-b': 2 },
  },
  {
    name: 'invalid by zones that no longer requires any allocations',
    slice: [{ zone: 'zone-a', hints: { forZones: [{ name: 'zone-non-existent' }] }, conditions: { ready: true } }],
    allocatedHintsByZone: { 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 },
    allocations: { 'zone-a': { maximum: 3 } },
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by endpoints with nil hints',
    slice: [{ zone: 'zone-a', conditions: { ready: true } }],
    allocatedHintsByZone: {},
    allocations: { 'zone-a': { maximum: 3 } },
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by endpoint with no hints',
    slice: [{ zone: 'zone-a', hints: { forZones: [] }, conditions: { ready: true } }],
    allocatedHintsByZone: {},
    allocations: { 'zone-a': { maximum: 3 } },
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by hints that would make minimum allocations impossible',
    slice: [
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
      { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] }, conditions: { ready: true } },
    ],
    allocatedHintsByZone: { 'zone-a': 1 },
    allocations: { 'zone-a': { maximum: 2 } },
    expectedHintsByZone: null,
  },
];

export const totalReadyCases = [
  { name: 'empty', toCreate: [], toUpdate: [], unchanged: [], expectedTotalReady: 0, expectedTotal: 0 },
  { name: 'empty slice', toCreate: [[0, 0]], toUpdate: [], unchanged: [], expectedTotalReady: 0, expectedTotal: 0 },
  { name: 'multiple slices', toCreate: [[15, 0], [8, 0]], toUpdate: [], unchanged: [], expectedTotalReady: 23, expectedTotal: 23 },
  {
    name: 'slices for all',
    toCreate: [[15, 0], [8, 0]],
    toUpdate: [[2, 0]],
    unchanged: [[100, 0], [90, 0]],
    expectedTotalReady: 215,
    expectedTotal: 215,
  },
  {
    name: 'slices for all with some unready',
    toCreate: [[15, 3], [5, 4]],
    toUpdate: [[3, 8]],
    unchanged: [[98, 2], [90, 6]],
    expectedTotalReady: 211,
    expectedTotal: 234,
  },
];

