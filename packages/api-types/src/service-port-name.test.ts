import { expect, it } from 'vitest';
import { servicePortNameString } from './service-port-name.js';

it('servicePortNameString prints namespace/name:port, and namespace/name for an unnamed port (upstream ServicePortName.String)', () => {
  expect(servicePortNameString({ namespace: 'default', name: 'kubernetes', port: 'https' })).toBe('default/kubernetes:https');
  expect(servicePortNameString({ namespace: 'ns1', name: 'svc1', port: '' })).toBe('ns1/svc1');
});
