// The name both proxies key a Service port by, and print in rule comments and logs.
// upstream: pkg/proxy/types.go (ServicePortName and its String method)

export interface ServicePortName {
  readonly namespace: string;
  readonly name: string;
  /** The Service port's name; '' for an unnamed single port. */
  readonly port: string;
}

/** "namespace/name:port", or "namespace/name" when the port is unnamed, as upstream prints it. */
export function servicePortNameString(spn: ServicePortName): string {
  const base = `${spn.namespace}/${spn.name}`;
  return spn.port === '' ? base : `${base}:${spn.port}`;
}
