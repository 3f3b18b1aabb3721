// The kubeconfig for a kubesvc API server: one cluster (the server's URL and the CA that signed
// its serving certificate), one user (the bearer token), one context, namespace default. kubectl
// sends the token only over TLS, which is why the CA is always there.
// upstream format: staging/src/k8s.io/client-go/tools/clientcmd/api/v1/types.go (Config)
export function kubeconfigYaml(server: string, caPem: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kubesvc',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    '- name: kubesvc',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: kubesvc',
    '  context:',
    '    cluster: kubesvc',
    '    user: kubesvc',
    '    namespace: default',
    'current-context: kubesvc',
    '',
  ].join('\n');
}
