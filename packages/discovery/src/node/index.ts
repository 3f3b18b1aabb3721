// Node adapter of @kubesvc/discovery: the DNS wire format and the DNS server.
export type { DnsServer, DnsServerOptions } from './dns-server.js';
export { startDnsServer } from './dns-server.js';
export type { HandleOptions } from './wire.js';
export { handleQuery, TCP_MAX_SIZE, UDP_DEFAULT_SIZE } from './wire.js';
