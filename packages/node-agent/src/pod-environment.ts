// The service environment variables the kubelet gives a pod's containers, from the Services the
// informer holds now.
// upstream: pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap: the services of the pod's
//           namespace when enableServiceLinks is on, and default/kubernetes always),
//           pkg/kubelet/envvars/envvars.go (FromServices: the variables, Docker links included)
import type { Pod, Service } from '@kubesvc/api-types';
import { serviceEnv, type EnvVar } from '@kubesvc/discovery';
import type { CacheView } from '@kubesvc/controllers';

export interface PodEnvironmentOptions {
  /** pod.spec.enableServiceLinks; the apiserver defaults it to true. */
  readonly enableServiceLinks?: boolean;
}

/** The variables a pod in `namespace` gets. */
export function podEnvironment(cache: CacheView, namespace: string, options: PodEnvironmentOptions = {}): EnvVar[] {
  const pod = options.enableServiceLinks === undefined ? { namespace } : { namespace, enableServiceLinks: options.enableServiceLinks };
  const env = serviceEnv(pod, cache.list<Service>('services'));
  // The informer's Services passed the registry's validation; a refusal means a corrupt cache.
  if (!env.ok) throw new Error(`pod environment: ${env.error.message}`);
  return env.value;
}

/** The variables of one pod: its namespace and its spec.enableServiceLinks. */
export function podEnvironmentOf(cache: CacheView, pod: Pod): EnvVar[] {
  const links = pod.spec?.enableServiceLinks;
  return podEnvironment(cache, pod.metadata.namespace ?? 'default', links === undefined || links === null ? {} : { enableServiceLinks: links });
}
