// The packet tracer of upstream's nftables proxier tests, for the packet-flow vectors of
// their per-feature tests. Test-only (excluded from the library build), and deliberately
// upstream's approximation, not a model of nftables: it recognises the rule pieces kube-proxy
// writes by regular expression, follows every endpoint of a `numgen` dispatch, and reports
// the endpoints reached, DROP or REJECT, and whether the packet was marked for masquerading.
// The package's own tracer (trace/) is the model; these vectors can run through it as well.
// upstream: pkg/proxy/nftables/helpers_test.go (nftablesTracer, runChain, tracePacket,
// runPacketFlowTests).

import { cidrContains, formatIP, parseCIDRSloppy, parseIPSloppy } from '@kubesvc/api-types';
import type { NftElement, NftTable } from '../model/types.js';

export interface PacketFlowTest {
  readonly name: string;
  readonly sourceIP: string;
  /** Lowercase; default tcp. */
  readonly protocol?: 'tcp' | 'udp' | 'sctp';
  readonly destIP: string;
  readonly destPort: number;
  /** The endpoints reached (`ip:port, ip:port`), `DROP`, `REJECT`, or '' when nothing matched. */
  readonly output: string;
  readonly masq?: boolean;
}

export interface PacketFlowResult {
  readonly output: string;
  readonly masq: boolean;
  readonly matches: readonly string[];
  /** Rules the tracer did not recognise (upstream fails the test on them). */
  readonly unmatched: readonly string[];
}

const destAddrRegexp = /^ip6* daddr (!= )?(\S+)/;
const destAddrLookupRegexp = /^ip6* daddr (!= )?\{([^}]*)\}/;
const destAddrLocalRegexp = /^fib daddr type local/;
const destPortRegexp = /^(tcp|udp|sctp) dport (\d+)/;
const destIPOnlyLookupRegexp = /^ip6* daddr @(\S+)/;
const destLookupRegexp = /^ip6* daddr \. meta l4proto \. th dport @(\S+)/;
const destSourceLookupRegexp = /^ip6* daddr \. meta l4proto \. th dport \. ip6* saddr @(\S+)/;
const destPortLookupRegexp = /^meta l4proto \. th dport @(\S+)/;
const destDispatchRegexp = /^ip6* daddr \. meta l4proto \. th dport vmap @(\S+)$/;
const destPortDispatchRegexp = /^meta l4proto \. th dport vmap @(\S+)$/;
const sourceAddrRegexp = /^ip6* saddr (!= )?(\S+)/;
const sourceAddrLookupRegexp = /^ip6* saddr (!= )?\{([^}]*)\}/;
const sourceAddrLocalRegexp = /^fib saddr type local/;
const endpointVMAPRegexp = /^numgen random mod \d+ vmap \{(.*)\}$/;
const endpointVMapEntryRegexp = /\d+ : goto (\S+)/g;
const masqueradeRegexp = /^jump mark-for-masquerade$/;
const jumpRegexp = /^(jump|goto) (\S+)$/;
const returnRegexp = /^return$/;
const verdictRegexp = /^(drop|reject)$/;
const dnatRegexp = /^meta l4proto (tcp|udp|sctp) dnat to (\S+)$/;
const ignoredRegexp = / *comment "[^"]*"$|^ct state new/g;

interface Packet {
  readonly sourceIP: string;
  readonly protocol: string;
  readonly destIP: string;
  readonly destPort: string;
}

class Tracer {
  readonly matches: string[] = [];
  readonly outputs: string[] = [];
  readonly unmatched: string[] = [];
  markMasq = false;

  constructor(
    private readonly table: NftTable,
    private readonly nodeIPs: ReadonlySet<string>,
  ) {}

  private elements(name: string): readonly NftElement[] {
    return [...(this.table.sets.get(name)?.elements.values() ?? [])];
  }

  private static addressMatches(ipText: string, wantMatch: boolean, ruleAddress: string): boolean {
    const ip = parseIPSloppy(ipText);
    if (!ip.ok) throw new Error(`Bad IP in test case: ${ipText}`);
    let match: boolean;
    if (ruleAddress.includes('/')) {
      const cidr = parseCIDRSloppy(ruleAddress);
      if (!cidr.ok) throw new Error(`Bad CIDR in kube-proxy output: ${ruleAddress}`);
      match = cidrContains(cidr.value.cidr, ip.value);
    } else {
      const other = parseIPSloppy(ruleAddress);
      if (!other.ok) throw new Error(`Bad IP/CIDR in kube-proxy output: ${ruleAddress}`);
      match = formatIP(ip.value) === formatIP(other.value);
    }
    return match === wantMatch;
  }

  private static addressMatchesSet(ipText: string, wantMatch: boolean, ruleAddress: string): boolean {
    for (const address of ruleAddress.replaceAll(' ', '').split(',')) {
      if (Tracer.addressMatches(ipText, true, address) !== wantMatch) return false;
    }
    return true;
  }

  private static matchDest(elements: readonly NftElement[], p: Packet): NftElement | undefined {
    return elements.find((e) => e.key[0] === p.destIP && e.key[1] === p.protocol && e.key[2] === p.destPort);
  }

  private static matchDestPort(elements: readonly NftElement[], p: Packet): NftElement | undefined {
    return elements.find((e) => e.key[0] === p.protocol && e.key[1] === p.destPort);
  }

  /** runChain: true when the packet reached a terminal statement. */
  runChain(chainName: string, p: Packet): boolean {
    const chain = this.table.chains.get(chainName);
    if (chain === undefined) {
      this.unmatched.push(`unknown chain ${chainName}`);
      return true;
    }
    for (const ruleObj of chain.rules) {
      let rule = ruleObj.rule.replace(ignoredRegexp, '');
      while (rule !== '') {
        rule = rule.trimStart();
        let m: RegExpExecArray | null;
        if ((m = destIPOnlyLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!this.elements(m[1] ?? '').some((e) => e.key[0] === p.destIP)) rule = '';
        } else if ((m = destSourceLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          const found = this.elements(m[1] ?? '').some(
            (e) => e.key[0] === p.destIP && e.key[1] === p.protocol && e.key[2] === p.destPort && Tracer.addressMatches(p.sourceIP, true, e.key[3] ?? ''),
          );
          if (!found) rule = '';
        } else if ((m = destLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (Tracer.matchDest(this.elements(m[1] ?? ''), p) === undefined) rule = '';
        } else if ((m = destPortLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (Tracer.matchDestPort(this.elements(m[1] ?? ''), p) === undefined) rule = '';
        } else if ((m = destDispatchRegexp.exec(rule)) !== null) {
          rule = Tracer.matchDest(this.elements(m[1] ?? ''), p)?.value?.[0] ?? '';
        } else if ((m = destPortDispatchRegexp.exec(rule)) !== null) {
          rule = Tracer.matchDestPort(this.elements(m[1] ?? ''), p)?.value?.[0] ?? '';
        } else if ((m = destAddrLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!Tracer.addressMatchesSet(p.destIP, m[1] !== '!= ', m[2] ?? '')) rule = '';
        } else if ((m = destAddrRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!Tracer.addressMatches(p.destIP, m[1] !== '!= ', m[2] ?? '')) rule = '';
        } else if ((m = destAddrLocalRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!this.nodeIPs.has(p.destIP)) rule = '';
        } else if ((m = destPortRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (p.protocol !== m[1] || p.destPort !== m[2]) rule = '';
        } else if ((m = sourceAddrLookupRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!Tracer.addressMatchesSet(p.sourceIP, m[1] !== '!= ', m[2] ?? '')) rule = '';
        } else if ((m = sourceAddrRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!Tracer.addressMatches(p.sourceIP, m[1] !== '!= ', m[2] ?? '')) rule = '';
        } else if ((m = sourceAddrLocalRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          if (!this.nodeIPs.has(p.sourceIP)) rule = '';
        } else if ((m = masqueradeRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          this.matches.push(ruleObj.rule);
          this.markMasq = true;
        } else if ((m = jumpRegexp.exec(rule)) !== null) {
          rule = rule.slice(m[0].length);
          this.matches.push(ruleObj.rule);
          if (this.runChain(m[2] ?? '', p)) return true;
          if (m[1] === 'goto') return false;
        } else if ((m = verdictRegexp.exec(rule)) !== null) {
          this.matches.push(ruleObj.rule);
          this.outputs.push((m[1] ?? '').toUpperCase());
          return true;
        } else if (returnRegexp.test(rule)) {
          this.matches.push(ruleObj.rule);
          return false;
        } else if ((m = dnatRegexp.exec(rule)) !== null) {
          this.matches.push(ruleObj.rule);
          this.outputs.push(m[2] ?? '');
          return true;
        } else if ((m = endpointVMAPRegexp.exec(rule)) !== null) {
          // Every endpoint of the dispatch, to gather them all.
          for (const entry of (m[1] ?? '').matchAll(endpointVMapEntryRegexp)) {
            this.matches.push(ruleObj.rule);
            this.runChain(entry[1] ?? '', p);
          }
          return true;
        } else {
          this.unmatched.push(ruleObj.rule);
          rule = '';
        }
      }
    }
    return false;
  }
}

/** Go's net.SplitHostPort's host: `[v6]:port` or `v4:port`. */
function hostOf(hostPort: string): string {
  const bracketed = /^\[([^\]]*)\]:\d+$/.exec(hostPort);
  if (bracketed !== null) return bracketed[1] ?? '';
  return hostPort.slice(0, hostPort.lastIndexOf(':'));
}

/**
 * tracePacket: filter-prerouting, then nat-prerouting (whose DNAT changes the destination
 * the later chains see), then filter-forward, then filter-input. The output chains are
 * skipped (redundant with prerouting), and nat-postrouting (masquerading is the mark).
 */
export function tracePacket(table: NftTable, test: PacketFlowTest, nodeIPs: readonly string[]): PacketFlowResult {
  const tracer = new Tracer(table, new Set(nodeIPs));
  let p: Packet = { sourceIP: test.sourceIP, protocol: test.protocol ?? 'tcp', destIP: test.destIP, destPort: String(test.destPort) };
  const done = (): PacketFlowResult => ({ output: tracer.outputs.join(', '), masq: tracer.markMasq, matches: tracer.matches, unmatched: tracer.unmatched });
  if (tracer.runChain('filter-prerouting', p)) return done();
  tracer.runChain('nat-prerouting', p);
  const first = tracer.outputs[0];
  if (first !== undefined) p = { ...p, destIP: hostOf(first) };
  if (tracer.runChain('filter-forward', p)) return done();
  tracer.runChain('filter-input', p);
  return done();
}

/** proxier_test.go testNodeIPs: the addresses the tracer treats as the node's. */
export const TEST_NODE_IPS = ['192.168.0.2', '192.168.1.2', '192.168.99.11', '2001:db8::1', '2001:db8:1::2'];
export const TEST_EXTERNAL_CLIENT = '203.0.113.2';
export const TEST_EXTERNAL_CLIENT_BLOCKED = '203.0.113.130';
