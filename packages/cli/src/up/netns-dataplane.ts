// `kubesvc up --dataplane netns`: the node agent's data plane that loads each iptables sync into
// a network-namespace lab's kernel. start-cluster.ts imports this module only when the option is
// given, so `kubesvc up` without it never loads the lab (@kubesvc/netlab).
export { netnsDataplane } from '@kubesvc/node-agent/netns';
