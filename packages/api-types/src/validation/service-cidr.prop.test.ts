// IPAddress names and ServiceCIDR blocks have exactly one valid spelling each: the one Go
// prints (INV-API-CANONICAL-SPELLING). The canonical text comes from testkit's RFC 5952
// formatter, written independently of this package's formatIP; the other spellings from
// testkit's ipSpellingArb, which says which of them only the sloppy parser reads. The expected
// reasons are upstream's (apimachinery v0.33 pkg/util/validation/ip.go IsValidIP, IsValidCIDR).
import { fc, test } from '@fast-check/vitest';
import { canonicalCIDRText, canonicalIPText, cidrArb, ipArb, ipSpellingArb, serviceCIDRArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import type { IPAddress, ServiceCIDR } from '../objects/service-cidr.js';
import { renderFieldError } from './field-errors.js';
import { validateIPAddress, validateIPAddressName, validateServiceCIDR } from './service-cidr.js';

function named(name: string): IPAddress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name },
    spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
  };
}

test.prop([ipArb])('INV-API-CANONICAL-SPELLING: an IPAddress named by its address as Go prints it validates', (ip) => {
  expect(validateIPAddress(named(canonicalIPText(ip))).map(renderFieldError)).toEqual([]);
});

test.prop([ipArb.chain((ip) => ipSpellingArb(ip, { sloppy: true }).map((spelling) => ({ ip, spelling })))])(
  'INV-API-CANONICAL-SPELLING: any other spelling of the address is refused, with upstream reason',
  ({ ip, spelling }) => {
    const canonical = canonicalIPText(ip);
    const { text, sloppyOnly } = spelling;
    let expected: string[];
    if (text === canonical) expected = [];
    else if (sloppyOnly) expected = ['must not have leading 0s'];
    else if (ip.family === 4 && text.includes(':')) expected = ['must not be an IPv4-mapped IPv6 address'];
    else expected = [`must be in canonical form ("${canonical}")`];
    expect(validateIPAddressName(text, false)).toEqual(expected);
    expect(validateIPAddress(named(text)).map(renderFieldError)).toEqual(
      expected.map((reason) => `metadata.name: Invalid value: "${text}": ${reason}`),
    );
  },
);

function withCIDRs(cidrs: string[]): ServiceCIDR {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs } };
}

test.prop([serviceCIDRArb()])('INV-API-CANONICAL-SPELLING: a ServiceCIDR of canonical blocks, one per family, validates', (serviceCIDR) => {
  expect(validateServiceCIDR(serviceCIDR).map(renderFieldError)).toEqual([]);
});

test.prop([cidrArb({ family: 6 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })])(
  'INV-API-CANONICAL-SPELLING: an IPv6 block with any hex digit upper-cased is refused as not canonical',
  (cidr, upper) => {
    const canonical = canonicalCIDRText(cidr);
    let i = 0;
    const text = canonical.replace(/[a-f]/g, (c) => (upper[i++ % upper.length] === true ? c.toUpperCase() : c));
    const expected = text === canonical ? [] : [`spec.cidrs[0]: Invalid value: "${text}": must be in canonical form ("${canonical}")`];
    expect(validateServiceCIDR(withCIDRs([text])).map(renderFieldError)).toEqual(expected);
  },
);
