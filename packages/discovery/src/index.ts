// Public API of @kubesvc/discovery.
export type { EnvVar, ServiceEnvPod } from './env/service-env.js';
export { envVarName, envVarsFromServices, serviceEnv, servicesVisibleToPod } from './env/service-env.js';
export type { AddressRecord, DnsRecord, NameRecord, Question, Rcode, Resolution, SoaRecord, SrvRecord, TxtRecord } from './dns/records.js';
export { RCODE_VALUES } from './dns/records.js';
export type { PodMode, Zone, ZoneAddress, ZoneEndpoint, ZoneOptions, ZonePort, ZoneService } from './dns/zone.js';
export { buildZone, endpointHostname, TOLERATE_UNREADY_ANNOTATION } from './dns/zone.js';
export type { ResolveOptions } from './dns/resolve.js';
export { DNS_SCHEMA_VERSION, DNS_VERSION_TTL, resolve, soaRecord } from './dns/resolve.js';
export { addressFromReverse, IPV4_REVERSE_ZONE, IPV6_REVERSE_ZONE, reverseName } from './dns/reverse-name.js';
export type { HandleOptions } from './dns/wire.js';
export { handleQuery, TCP_MAX_SIZE, UDP_DEFAULT_SIZE } from './dns/wire.js';
export type { DnsConfigLike, ResolvConfInput } from './dns/resolv-conf.js';
export { resolvConf } from './dns/resolv-conf.js';
