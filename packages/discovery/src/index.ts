// Public API of @kubesvc/discovery.
export type { EnvVar, ErrDiscoveryInput, ServiceEnvPod } from './env/service-env.js';
export { envVarName, envVarsFromServices, serviceEnv, servicesVisibleToPod } from './env/service-env.js';
export type { AddressRecord, DnsRecord, NameRecord, Question, Rcode, Resolution, SoaRecord, SrvRecord, TxtRecord } from './dns/records.js';
export { RCODE_VALUES } from './dns/records.js';
export type { ErrZoneInput, ErrZoneOptions, PodMode, Zone, ZoneAddress, ZoneDiagnostic, ZoneEndpoint, ZoneObjectRef, ZoneOptions, ZonePort, ZoneService } from './dns/zone.js';
export { buildZone, DEFAULT_REVERSE_ZONES, endpointHostname, TOLERATE_UNREADY_ANNOTATION } from './dns/zone.js';
export { formatMessage, formatName, formatQuestion, formatRdata, formatRecord } from './dns/format.js';
export type { ResolveOptions } from './dns/resolve.js';
export { DNS_SCHEMA_VERSION, DNS_VERSION_TTL, resolve, soaRecord } from './dns/resolve.js';
export { addressFromReverse, IPV4_REVERSE_ZONE, IPV6_REVERSE_ZONE, reverseName } from './dns/reverse-name.js';
export type { DnsConfigLike, ResolvConfInput } from './dns/resolv-conf.js';
export { resolvConf } from './dns/resolv-conf.js';
