import { describe, expect, it } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfigOptions } from './config.js';

function refused(options: unknown): string {
  const result = nftablesProxierConfig(options as NftablesProxierConfigOptions);
  if (result.ok) throw new Error('expected a refusal');
  expect(result.error._tag).toBe('ErrNftablesProxierConfig');
  return result.error.message;
}

function accepted(options: NftablesProxierConfigOptions) {
  const result = nftablesProxierConfig(options);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('nftablesProxierConfig fills the defaults NewProxier has', () => {
  it("masquerades with Go's %#08x of bit 14, detects no local traffic, accepts NodePorts on every address and has no ServiceCIDRs nor topology labels", () => {
    expect(accepted({ nodeName: 'n' })).toEqual({
      nodeName: 'n',
      nodeIPs: [],
      nodeIP: '',
      family: 4,
      localDetector: { kind: 'none' },
      masqueradeBit: 14,
      masqueradeMark: '0x00004000',
      masqueradeAll: false,
      nodePortAddresses: [],
      topologyLabels: {},
      preferSameTrafficDistribution: false,
      serviceCIDRs: [],
    });
    expect(accepted({ nodeName: 'n', masqueradeBit: 0 }).masqueradeMark).toBe('0x00000001');
  });

  it("takes the node IP from the node's first non-loopback address of the family", () => {
    const nodeIPs = ['127.0.0.1', '::1', '192.168.0.2', '2001:db8::1'];
    expect(accepted({ nodeName: 'n', nodeIPs }).nodeIP).toBe('192.168.0.2');
    expect(accepted({ nodeName: 'n', nodeIPs, family: 6 }).nodeIP).toBe('2001:db8::1');
  });

  it("keeps the ServiceCIDRs of the proxier's family, as OnServiceCIDRsChanged does", () => {
    const serviceCIDRs = ['172.30.0.0/16', 'fd00:10:96::/112', '10.96.0.0/12'];
    expect(accepted({ nodeName: 'n', serviceCIDRs }).serviceCIDRs).toEqual(['172.30.0.0/16', '10.96.0.0/12']);
    expect(accepted({ nodeName: 'n', serviceCIDRs, family: 6 }).serviceCIDRs).toEqual(['fd00:10:96::/112']);
  });
});

describe('nftablesProxierConfig refuses bad input with field errors', () => {
  it('refuses a cluster CIDR that does not parse, or of the other family', () => {
    expect(refused({ nodeName: 'n', localDetector: { kind: 'cidr', cidr: 'banana' } })).toBe(
      'localDetector.cidr: Invalid value: "banana": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)',
    );
    expect(refused({ nodeName: 'n', family: 6, localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } })).toBe(
      'localDetector.cidr: Invalid value: "10.0.0.0/8": must be an IPv6 CIDR for an IPv6 proxier',
    );
  });

  it('refuses a masquerade bit out of range and a mark that is no number', () => {
    expect(refused({ nodeName: 'n', masqueradeBit: 32 })).toBe('masqueradeBit: Invalid value: 32: must be within the range [0, 31]');
    expect(refused({ nodeName: 'n', masqueradeMark: 'mark' })).toBe(
      'masqueradeMark: Invalid value: "mark": must be a mark value, hexadecimal (0x4000) or decimal',
    );
  });

  it('refuses nodePortAddresses with a non-CIDR entry, reporting the whole list as kube-proxy does', () => {
    expect(refused({ nodeName: 'n', nodePortAddresses: ['10.0.0.0/8', '192.168.0.1'] })).toBe(
      'nodePortAddresses: Invalid value: []string{"10.0.0.0/8", "192.168.0.1"}: must be a valid IP block',
    );
  });

  it('refuses a ServiceCIDR that does not parse, naming its index', () => {
    expect(refused({ nodeName: 'n', serviceCIDRs: ['172.30.0.0/16', '172.30.0.0'] })).toBe(
      'serviceCIDRs[1]: Invalid value: "172.30.0.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)',
    );
    expect(refused({ nodeName: 'n', serviceCIDRs: '172.30.0.0/16' })).toBe('serviceCIDRs: Invalid value: "172.30.0.0/16": must be a list of CIDR blocks');
  });

  it('refuses a node IP of the other family', () => {
    expect(refused({ nodeName: 'n', family: 6, nodeIP: '192.168.0.2' })).toBe(
      'nodeIP: Invalid value: "192.168.0.2": must be an IPv6 address for an IPv6 proxier',
    );
  });

  it('reports every bad field at once, and never throws', () => {
    expect(refused({ nodeName: 'n', nodeIPs: ['x'], family: 5, masqueradeAll: 'yes' })).toBe(
      '[family: Unsupported value: 5: supported values: "4", "6", nodeIPs[0]: Invalid value: "x": must be a valid IP, masqueradeAll: Invalid value: "yes": must be true or false]',
    );
    expect(refused({})).toBe('nodeName: Required value: must be a string');
    expect(refused(null)).toContain('options: Invalid value: "null": must be an object');
    expect(refused({ nodeName: 'n', localDetector: { kind: 'bridge' } })).toBe(
      'localDetector.kind: Unsupported value: "bridge": supported values: "cidr", "none"',
    );
  });
});
