// Public API of @kubesvc/cli: the program (to run `kubesvc` in-process or add to it), the
// subcommand registry, and the pure logic behind each offline command.
export type { CliIo } from './cli-io.js';
export { asCliError, ErrApiStatus, ErrInput, ErrNotFound, ErrUsage, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_USAGE, exitCodeOf, inputError, usageError } from './cli-error.js';
export type { CliError, CliErrorTag } from './cli-error.js';
export type { CliCommand, CommandContext } from './commands/command.js';
export { COMMANDS } from './commands/index.js';
export { PROGRAM_NAME, buildProgram, runCli } from './program.js';
export type { Dump, ErrDump } from './dump/load-dump.js';
export { decodeText, dumpOf, loadDump } from './dump/load-dump.js';
export { endpointSlicesForProxy, mirrorEndpoints } from './dump/endpoint-slices.js';
export type { DocumentText, PlacedManifests, PlacedObject } from './dump/documents.js';
export { documentTexts, placeObjects } from './dump/documents.js';
export { DATA_FORMATS, formatData, formatTable } from './output/output-format.js';
export type { DataFormat } from './output/output-format.js';
export type { ErrRulesView, RulesFlags, RulesOutput } from './logic/rules.js';
export { DEFAULT_NODE_NAME, formatRuleDiagnostic, rulesConfig, rulesDiffOf, rulesOf } from './logic/rules.js';
export type { ErrPacketFlags, PacketFlags, TracedPacket } from './logic/trace.js';
export { DEFAULT_OUTSIDE_SOURCE, DEFAULT_POD_SOURCE, PACKET_ENTRIES, PACKET_PROTOCOLS, packetOf, traceData, traceTable } from './logic/trace.js';
export type { DnsAnswer, DnsFlags } from './logic/dns.js';
export { answerData, answerOf, endpointObjectsForDns, formatAnswer, questionOf } from './logic/dns.js';
export { envData, envOf, envTable, formatEnvLines } from './logic/env.js';
export type { ValidationEntry, ValidationReport, ValidationResult } from './logic/validate.js';
export { formatValidation, objectErrors, placeText, validateText, validationData, validationTable } from './logic/validate.js';
export type { IpHolder, IpLookup, IpsReport, LeakedIP, RangePicture } from './logic/ips.js';
export { ipsData, ipsReport, ipsTable, lookupData, lookupIP, lookupTable } from './logic/ips.js';
