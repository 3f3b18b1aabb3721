// `kubesvc dns`: the cluster DNS's answer to one question for a dump, as dig prints it. Pure.
import { err, ok, parseIP, type Endpoints, type EndpointSlice, type Result, type TaggedError } from '@kubesvc/api-types';
import {
  buildZone,
  formatMessage,
  resolve,
  reverseName,
  type ErrZoneInput,
  type ErrZoneOptions,
  type PodMode,
  type Question,
  type Resolution,
  type Zone,
} from '@kubesvc/discovery';
import type { Dump } from '../dump/load-dump.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** The EndpointSlices of the dump, and the Endpoints of the Services that have no slice (an old dump). */
export function endpointObjectsForDns(dump: Pick<Dump, 'endpointSlices' | 'endpoints'>): (EndpointSlice | Endpoints)[] {
  const withSlices = new Set(
    dump.endpointSlices.map((s) => `${s.metadata.namespace ?? 'default'}/${s.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}`),
  );
  return [...dump.endpointSlices, ...dump.endpoints.filter((e) => !withSlices.has(`${e.metadata.namespace ?? 'default'}/${e.metadata.name ?? ''}`))];
}

export interface DnsFlags {
  readonly zone: string;
  readonly pods: PodMode;
}

export interface DnsAnswer {
  readonly question: Question;
  readonly resolution: Resolution;
}

/** The address of `ns.dns.<zone>`: the cluster DNS Service's ClusterIPs, when the dump has kube-system/kube-dns. */
function nameservers(dump: Dump): string[] {
  const dns = dump.services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns');
  const ips = dns?.spec?.clusterIPs ?? (dns?.spec?.clusterIP !== undefined ? [dns.spec.clusterIP] : []);
  return ips.filter((ip) => parseIP(ip).ok);
}

/** The question for NAME and TYPE; with `reverse`, NAME is an address and the question its PTR (dig -x). */
export function questionOf(name: string, type: string | undefined, reverse: boolean): Result<Question, TaggedError<'ErrQuestion'>> {
  if (!reverse) return ok({ name, type: (type ?? 'A').toUpperCase() });
  const ip = parseIP(name);
  if (!ip.ok) return err({ _tag: 'ErrQuestion', message: `-x ${JSON.stringify(name)}: ${ip.error.message}` });
  return ok({ name: reverseName(ip.value), type: (type ?? 'PTR').toUpperCase() });
}

/** The cluster DNS's zone for the dump: its Services, endpoints and Pods, in the namespaces that exist. */
export function zoneOfDump(dump: Dump, flags: DnsFlags): Result<Zone, ErrZoneOptions | ErrZoneInput> {
  // The namespaces that exist: the dump's Namespaces, and every namespace an object is in.
  const namespaces = [
    ...new Set(
      [...dump.namespaces.map((n) => n.metadata.name), ...dump.objects.map((o) => o.metadata.namespace)].filter(
        (n): n is string => n !== undefined && n !== '',
      ),
    ),
  ];
  const zone = buildZone(dump.services, endpointObjectsForDns(dump), dump.pods, {
    zone: flags.zone,
    pods: flags.pods,
    nameservers: nameservers(dump),
    ...(namespaces.length > 0 ? { namespaces } : {}),
  });
  return zone;
}

/** Builds the zone of the dump and answers the question. */
export function answerOf(dump: Dump, question: Question, flags: DnsFlags): Result<DnsAnswer, ErrZoneOptions | ErrZoneInput> {
  const zone = zoneOfDump(dump, flags);
  if (!zone.ok) return zone;
  return ok({ question, resolution: resolve(zone.value, question) });
}

/** dig's view of the answer (discovery's formatMessage). */
export function formatAnswer(answer: DnsAnswer): string {
  return formatMessage(answer.question, answer.resolution);
}

/** `-o json|yaml`: the question, the rcode and the sections' records. */
export function answerData(answer: DnsAnswer): Record<string, unknown> {
  const { rcode, authoritative, answer: records, authority, additional } = answer.resolution;
  return { question: { ...answer.question }, rcode, authoritative, answer: records, authority, additional };
}
