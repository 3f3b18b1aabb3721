// Reading kubeconfigs as kubectl does (client-go v1.33 clientcmd): which files, the merge of
// several ($KUBECONFIG), --context, paths relative to the file that names them, and the
// credentials (token, token file, client certificate and key, exec plugin).
import { describe, expect, it } from 'vitest';
import { kubeconfigPaths, kubeconfigTarget } from './kubeconfig.js';

const A = `apiVersion: v1
kind: Config
current-context: a
clusters:
- name: one
  cluster: {server: https://one.example:6443/, certificate-authority: ca/one.crt}
- name: shared
  cluster: {server: https://first.example:6443}
contexts:
- name: a
  context: {cluster: one, user: alice, namespace: shop}
- name: s
  context: {cluster: shared, user: alice}
users:
- name: alice
  user: {client-certificate: certs/alice.crt, client-key: certs/alice.key}
`;

const B = `apiVersion: v1
kind: Config
current-context: b
clusters:
- name: shared
  cluster: {server: https://second.example:6443, insecure-skip-tls-verify: true}
- name: two
  cluster: {server: https://two.example:6443, certificate-authority-data: ${Buffer.from('PEM-CA').toString('base64')}}
contexts:
- name: b
  context: {cluster: two, user: bob}
- name: e
  context: {cluster: two, user: plugin}
users:
- name: bob
  user: {tokenFile: secrets/token}
- name: alice
  user: {token: not-this-one}
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./get-token
      args: [--cluster, two]
      env: [{name: REGION, value: eu}]
`;

describe('kubeconfigPaths', () => {
  it('takes the flag alone, else every path of $KUBECONFIG (duplicates once), else the data dir\'s', () => {
    expect(kubeconfigPaths('/x/config', { KUBECONFIG: '/a:/b' }, '.kubesvc')).toEqual({ paths: ['/x/config'], explicit: true });
    expect(kubeconfigPaths(undefined, { KUBECONFIG: '/a::/b:/a' }, '.kubesvc')).toEqual({ paths: ['/a', '/b'], explicit: false });
    expect(kubeconfigPaths(undefined, {}, '/d')).toEqual({ paths: ['/d/kubeconfig'], explicit: true });
  });
});

describe('kubeconfigTarget', () => {
  const files = [
    { path: '/home/me/.kube/a.yaml', text: A },
    { path: '/etc/k/b.yaml', text: B },
  ];

  it('uses the first file\'s current-context, and resolves its relative paths against that file', () => {
    const t = kubeconfigTarget(files);
    expect(t).toEqual({
      ok: true,
      value: {
        server: 'https://one.example:6443',
        caFile: '/home/me/.kube/ca/one.crt',
        clientCertFile: '/home/me/.kube/certs/alice.crt',
        clientKeyFile: '/home/me/.kube/certs/alice.key',
        insecureSkipTLSVerify: false,
        namespace: 'shop',
        context: 'a',
        files: ['/home/me/.kube/a.yaml', '/etc/k/b.yaml'],
      },
    });
  });

  it('merges by name with the first file winning: the shared cluster and the user alice are the first file\'s', () => {
    const t = kubeconfigTarget(files, 's');
    expect(t.ok && [t.value.server, t.value.insecureSkipTLSVerify, t.value.token, t.value.clientCertFile]).toEqual(['https://first.example:6443', false, undefined, '/home/me/.kube/certs/alice.crt']);
  });

  it('--context picks a context of the second file, with its CA data, a token file and the default namespace', () => {
    const t = kubeconfigTarget(files, 'b');
    expect(t.ok && t.value).toMatchObject({ server: 'https://two.example:6443', ca: 'PEM-CA', tokenFile: '/etc/k/secrets/token', namespace: 'default', context: 'b' });
  });

  it('reads an exec plugin: its command resolved next to the file, its args and env', () => {
    const t = kubeconfigTarget(files, 'e');
    expect(t.ok && t.value.exec).toEqual({ command: '/etc/k/get-token', args: ['--cluster', 'two'], env: { REGION: 'eu' }, apiVersion: 'client.authentication.k8s.io/v1' });
  });

  it('says what is missing: a context, a cluster, no current-context', () => {
    const missing = kubeconfigTarget(files, 'nope');
    expect(!missing.ok && missing.error.message).toBe('context "nope" does not exist in /home/me/.kube/a.yaml, /etc/k/b.yaml');
    const none = kubeconfigTarget([{ path: '/k', text: 'apiVersion: v1\nkind: Config\n' }]);
    expect(!none.ok && none.error.message).toBe('/k: current-context is not set (name one with --context)');
    const noCluster = kubeconfigTarget([{ path: '/k', text: 'current-context: c\ncontexts: [{name: c, context: {cluster: x}}]\n' }]);
    expect(!noCluster.ok && noCluster.error.message).toBe('cluster "x" of context "c" does not exist in /k');
    const broken = kubeconfigTarget([{ path: '/k', text: 'a: [' }]);
    expect(!broken.ok && broken.error.message).toMatch(/^\/k: not a kubeconfig: /);
  });
});
