// The key of everything userspace mode keeps per Service port.
// upstream: pkg/proxy/types.go (ServicePortName, its String method)

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
