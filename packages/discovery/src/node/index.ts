// Node adapter of @kubesvc/discovery: the DNS server.
export type { DnsServer, DnsServerOptions } from './dns-server.js';
export { startDnsServer } from './dns-server.js';
