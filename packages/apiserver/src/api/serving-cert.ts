// A self-signed serving certificate for the API server. kubectl sends a kubeconfig's bearer
// token only over TLS (client-go's clientcmd applies user credentials to a config only when
// its transport is TLS), so a server that checks tokens must speak HTTPS; the CLI writes this
// certificate into the kubeconfig as the cluster's certificate authority.
// upstream: staging/src/k8s.io/client-go/tools/clientcmd/client_config.go (ClientConfig: "only
//           try to read the auth information if we are secure")
import selfsigned from 'selfsigned';

export interface ServingCertificate {
  /** PEM */
  readonly cert: string;
  /** PEM, PKCS#8 */
  readonly key: string;
}

export interface ServingCertificateOptions {
  /** IP addresses the certificate names (subjectAltName). Default 127.0.0.1 and ::1. */
  readonly ips?: readonly string[];
  /** DNS names it names. Default localhost. */
  readonly dnsNames?: readonly string[];
  /** Validity in days. Default 365. */
  readonly days?: number;
}

/** Generates a key pair and a self-signed certificate for `ips` and `dnsNames`. */
export async function generateServingCertificate(options: ServingCertificateOptions = {}): Promise<ServingCertificate> {
  const ips = options.ips ?? ['127.0.0.1', '::1'];
  const dnsNames = options.dnsNames ?? ['localhost'];
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'kubesvc' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + (options.days ?? 365) * 86_400_000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...ips.map((ip) => ({ type: 7 as const, ip })), ...dnsNames.map((value) => ({ type: 2 as const, value }))] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
