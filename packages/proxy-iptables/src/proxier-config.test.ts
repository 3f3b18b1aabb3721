import { describe, expect, it } from 'vitest';
import { generateRules } from './backend.js';
import { proxierConfig, type ProxierConfigOptions } from './proxier-config.js';

function refused(options: unknown): string {
  const result = proxierConfig(options as ProxierConfigOptions);
  if (result.ok) throw new Error('expected a refusal');
  expect(result.error._tag).toBe('ErrProxierConfig');
  return result.error.message;
}

describe('proxierConfig validates every field at construction', () => {
  it("refuses a cluster CIDR that does not parse, with kube-proxy's ClusterCIDR message, instead of writing `! -s banana`", () => {
    expect(refused({ nodeName: 'n', localDetector: { kind: 'cidr', cidr: 'banana' } })).toBe(
      'localDetector.cidr: Invalid value: "banana": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)',
    );
  });

  it('refuses a cluster CIDR of the other family', () => {
    expect(refused({ nodeName: 'n', family: 6, localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } })).toBe(
      'localDetector.cidr: Invalid value: "10.0.0.0/8": must be an IPv6 CIDR for an IPv6 proxier',
    );
  });

  it('returns an error value for a masquerade bit out of range (it used to throw a RangeError)', () => {
    expect(refused({ nodeName: 'n', masqueradeBit: 32 })).toBe('masqueradeBit: Invalid value: 32: must be within the range [0, 31]');
    expect(refused({ nodeName: 'n', masqueradeBit: 1.5 })).toBe('masqueradeBit: Invalid value: 1.5: must be within the range [0, 31]');
  });

  it("refuses nodePortAddresses with a non-CIDR entry, reporting the whole list as kube-proxy does", () => {
    expect(refused({ nodeName: 'n', nodePortAddresses: ['10.0.0.0/8', '192.168.0.1'] })).toBe(
      'nodePortAddresses: Invalid value: []string{"10.0.0.0/8", "192.168.0.1"}: must be a valid IP block',
    );
  });

  it('reports every bad field at once', () => {
    const message = refused({ nodeName: 'n', nodeIPs: ['x'], nodeIP: 'y', family: 5, masqueradeMark: 'mark', probabilityFormat: 'new' });
    expect(message).toBe(
      '[family: Unsupported value: 5: supported values: "4", "6", nodeIPs[0]: Invalid value: "x": must be a valid IP, nodeIP: Invalid value: "y": must be a valid IP, masqueradeMark: Invalid value: "mark": must be a mark value, hexadecimal (0x4000) or decimal, probabilityFormat: Unsupported value: "new": supported values: "modern", "old"]',
    );
  });

  it('refuses a missing node name, options that are no object, and values of the wrong type, without throwing', () => {
    expect(refused({})).toBe('nodeName: Required value: must be a string');
    expect(refused(null)).toContain('options: Invalid value: "null": must be an object');
    expect(refused({ nodeName: 'n', randomFully: 'yes' })).toBe('randomFully: Invalid value: "yes": must be true or false');
    expect(refused({ nodeName: 'n', kubeProxyVersion: '1.9' })).toBe(
      'kubeProxyVersion: Unsupported value: "1.9": supported values: "1.8", "1.31"',
    );
  });

  it("refuses settings kube-proxy 1.8 did not have, rather than ignoring them", () => {
    expect(refused({ nodeName: 'n', kubeProxyVersion: '1.8', randomFully: true })).toBe(
      'randomFully: Forbidden: kube-proxy 1.8 has no such setting (added in v1.16)',
    );
    expect(refused({ nodeName: 'n', kubeProxyVersion: '1.8', nodePortAddresses: ['10.0.0.0/8'] })).toBe(
      'nodePortAddresses: Forbidden: kube-proxy 1.8 has no such setting (added in v1.10)',
    );
  });

  it('accepts a valid config and fills the defaults', () => {
    const result = proxierConfig({ nodeName: 'n', nodeIPs: ['127.0.0.1', '192.168.0.10'], localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
    expect(result.ok && result.value).toMatchObject({
      nodeIP: '192.168.0.10',
      family: 4,
      masqueradeMark: '0x00004000',
      localhostNodePorts: true,
      probabilityFormat: 'modern',
      kubeProxyVersion: '1.31',
    });
    const legacy = proxierConfig({ nodeName: 'n', kubeProxyVersion: '1.8' });
    expect(legacy.ok && legacy.value).toMatchObject({ probabilityFormat: 'old', localhostNodePorts: false });
    const valid = proxierConfig({ nodeName: 'n', localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
    if (!valid.ok) throw new Error(valid.error.message);
    expect(generateRules([], [], valid.value).restoreText).not.toContain('banana');
  });
});
