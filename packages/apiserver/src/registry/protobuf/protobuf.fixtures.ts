// Request bodies captured from real clients, for the protobuf decoder's tests. Each capture is
// the exact body bytes (hex) and, for kubectl's generators, the JSON the same kubectl prints for
// the same object with `--dry-run=client -o json` (Go's encoding/json over the object it then
// sends as protobuf): the decoder must turn the bytes into that JSON.
//
// Captured with /usr/bin/kubectl v1.33.1 against a kubesvc API server behind a logging proxy
// (plain HTTP on 127.0.0.1), each command run twice: once with `--dry-run=client -o json` for
// the JSON, once for real for the POST body.
//
// The messages kubectl never sends (Endpoints, EndpointSlice, Event, Node, a Service with every
// field) were encoded by protoc 3.21.12 (Debian's protobuf-compiler) from upstream's v1.33
// generated.proto files (k8s.io/api v0.33.9, k8s.io/apimachinery v0.33.9) and the text
// messages below: `protoc --encode=k8s.io.api.core.v1.Endpoints ... < endpoints.txtpb`, then
// `--encode=k8s.io.apimachinery.pkg.runtime.Unknown` of the envelope with that as `raw`, behind
// the magic bytes 6b387300. protoc writes only the fields the text sets (gogo writes every
// non-pointer field), so these also cover absent fields.

export interface KubectlCapture {
  /** The command, after `kubectl --kubeconfig=... `. */
  readonly command: string;
  readonly hex: string;
  /** `kubectl <command> --dry-run=client -o json`, verbatim. */
  readonly dryRunJson: string;
}

export const KUBECTL_CAPTURES = {
  clusterip: {
    command: 'create service clusterip web --tcp=80:8080',
    hex:
      '6b3873000a0d0a02763112075365727669636512690a1f0a0377656212001a0022002a003200380042005a0a0a036170' +
      '70120377656212420a1b0a0738302d38303830120354435018502207080010903f1a002800120a0a0361707012037765' +
      '621a002209436c757374657249503a00420052005a00600068001a020a001a002200',
    dryRunJson:
      '{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},"type":"ClusterIP"},"status":{"loadBalancer":{}}}',
  },
  nodeport: {
    command: 'create service nodeport web-np --tcp=80:8080 --node-port=30080',
    hex:
      '6b3873000a0d0a02763112075365727669636512730a250a067765622d6e7012001a0022002a003200380042005a0d0a' +
      '0361707012067765622d6e7012460a1d0a0738302d38303830120354435018502207080010903f1a002880eb01120d0a' +
      '0361707012067765622d6e701a0022084e6f6465506f72743a00420052005a00600068001a020a001a002200',
    dryRunJson:
      '{"kind":"Service","apiVersion":"v1","metadata":{"name":"web-np","creationTimestamp":null,"labels":{"app":"web-np"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080,"nodePort":30080}],"selector":{"app":"web-np"},"type":"NodePort"},"status":{"loadBalancer":{}}}',
  },
  loadbalancer: {
    command: 'create service loadbalancer web-lb --tcp=443:https --tcp=80:8080',
    hex:
      '6b3873000a0d0a0276311207536572766963651299010a250a067765622d6c6212001a0022002a003200380042005a0d' +
      '0a0361707012067765622d6c62126c0a220a093434332d6874747073120354435018bb03220b080110001a0568747470' +
      '7328000a1b0a0738302d38303830120354435018502207080010903f1a002800120d0a0361707012067765622d6c621a' +
      '00220c4c6f616442616c616e6365723a00420052005a00600068001a020a001a002200',
    dryRunJson:
      '{"kind":"Service","apiVersion":"v1","metadata":{"name":"web-lb","creationTimestamp":null,"labels":{"app":"web-lb"}},"spec":{"ports":[{"name":"443-https","protocol":"TCP","port":443,"targetPort":"https"},{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web-lb"},"type":"LoadBalancer"},"status":{"loadBalancer":{}}}',
  },
  externalname: {
    command: 'create service externalname ext --external-name=example.com',
    hex:
      '6b3873000a0d0a027631120753657276696365125a0a1f0a0365787412001a0022002a003200380042005a0a0a036170' +
      '7012036578741233120a0a0361707012036578741a00220c45787465726e616c4e616d653a004200520b6578616d706c' +
      '652e636f6d5a00600068001a020a001a002200',
    dryRunJson:
      '{"kind":"Service","apiVersion":"v1","metadata":{"name":"ext","creationTimestamp":null,"labels":{"app":"ext"}},"spec":{"selector":{"app":"ext"},"type":"ExternalName","externalName":"example.com"},"status":{"loadBalancer":{}}}',
  },
  headless: {
    command: 'create service clusterip headless --clusterip=None',
    hex:
      '6b3873000a0d0a027631120753657276696365125f0a290a08686561646c65737312001a0022002a003200380042005a' +
      '0f0a036170701208686561646c657373122e120f0a036170701208686561646c6573731a044e6f6e652209436c757374' +
      '657249503a00420052005a00600068001a020a001a002200',
    dryRunJson:
      '{"kind":"Service","apiVersion":"v1","metadata":{"name":"headless","creationTimestamp":null,"labels":{"app":"headless"}},"spec":{"selector":{"app":"headless"},"clusterIP":"None","type":"ClusterIP"},"status":{"loadBalancer":{}}}',
  },
  namespace: {
    command: 'create namespace team-a',
    hex:
      '6b3873000a0f0a02763112094e616d657370616365121e0a160a067465616d2d6112001a0022002a0032003800420012' +
      '001a020a001a002200',
    dryRunJson:
      '{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team-a","creationTimestamp":null},"spec":{},"status":{}}',
  },
} as const satisfies Record<string, KubectlCapture>;

/**
 * The DELETE body of `kubectl drain node-1 --disable-eviction --force --grace-period=5`: a
 * protobuf DeleteOptions with gracePeriodSeconds 5 (kubectl's typed pod client).
 */
export const DRAIN_DELETE_OPTIONS_HEX = '6b3873000a130a027631120d44656c6574654f7074696f6e73120208051a002200';

/**
 * The POST body of `kubectl debug node/node-1 --image=busybox` (kubectl's typed pod client):
 * a Pod with a hostPath volume, host namespaces and a toleration. There is no dry run for
 * debug; the fields it sets were read with `protoc --decode=k8s.io.api.core.v1.Pod`.
 */
export const DEBUG_POD_HEX =
  '6b3873000a090a0276311203506f6412d7010a2a0a1a6e6f64652d64656275676765722d6e6f64652d312d736636746e' +
  '12001a0022002a003200380042001293010a120a09686f73742d726f6f7412050a030a012f12450a0864656275676765' +
  '72120762757379626f782a0042004a180a09686f73742d726f6f7410001a052f686f7374220032006a00720080010088' +
  '0100900100a2010446696c651a054e65766572320042004a0052066e6f64652d315801600168018201008a01009a0100' +
  'b2010e0a0012064578697374731a002200c201001a130a001a0022002a0032004a005a0072008801001a002200';

export interface ProtocFixture {
  /** The object's text message, as given to protoc. */
  readonly text: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly hex: string;
}

export const PROTOC_FIXTURES = {
  endpoints: {
    text: `metadata { name: "db" namespace: "default" labels { key: "app" value: "db" } }
subsets {
  addresses { ip: "10.244.0.5" nodeName: "node-1" targetRef { kind: "Pod" namespace: "default" name: "db-0" uid: "u-1" } }
  notReadyAddresses { ip: "10.244.0.6" hostname: "db-1" }
  ports { name: "pg" port: 5432 protocol: "TCP" appProtocol: "postgresql" }
}`,
    apiVersion: 'v1',
    kind: 'Endpoints',
    hex:
      '6b3873000a0f0a0276311209456e64706f696e7473127b0a180a0264621a0764656661756c745a090a03617070120264' +
      '62125f0a2f0a0a31302e3234342e302e3512190a03506f64120764656661756c741a0464622d302203752d3122066e6f' +
      '64652d3112120a0a31302e3234342e302e361a0464622d311a180a02706710b82a1a03544350220a706f737467726573' +
      '716c',
  },
  endpointSlice: {
    text: `metadata { name: "db-abc12" namespace: "default" labels { key: "kubernetes.io/service-name" value: "db" } }
addressType: "IPv4"
endpoints { addresses: "10.244.0.5" conditions { ready: true serving: true terminating: false } nodeName: "node-1" zone: "z1" hints { forZones { name: "z1" } } }
endpoints { addresses: "10.244.0.6" }
ports { name: "pg" protocol: "TCP" port: 5432 }`,
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    hex:
      '6b3873000a240a13646973636f766572792e6b38732e696f2f7631120d456e64706f696e74536c6963651283010a350a' +
      '0864622d61626331321a0764656661756c745a200a1a6b756265726e657465732e696f2f736572766963652d6e616d65' +
      '1202646212280a0a31302e3234342e302e35120608011001180032066e6f64652d313a027a3142060a040a027a31120c' +
      '0a0a31302e3234342e302e361a0c0a027067120354435018b82a220449507634',
  },
  emptyEndpointSlice: {
    text: `metadata { name: "db-empty" namespace: "default" }
addressType: "IPv6"`,
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    hex:
      '6b3873000a240a13646973636f766572792e6b38732e696f2f7631120d456e64706f696e74536c696365121b0a130a08' +
      '64622d656d7074791a0764656661756c74220449507636',
  },
  event: {
    text: `metadata { name: "web.1" namespace: "default" }
involvedObject { kind: "Service" namespace: "default" name: "web" }
reason: "Created"
message: "hello"
source { component: "kubesvc" }
firstTimestamp { seconds: 1700000000 nanos: 123 }
lastTimestamp { }
count: 2
type: "Normal"
eventTime { seconds: 1700000000 nanos: 123456789 }
reportingComponent: "kubesvc"
reportingInstance: "node-1"`,
    apiVersion: 'v1',
    kind: 'Event',
    hex:
      '6b3873000a0b0a02763112054576656e74127a0a100a057765622e311a0764656661756c7412170a0753657276696365' +
      '120764656661756c741a037765621a0743726561746564220568656c6c6f2a090a076b75626573766332080880e2cfaa' +
      '06107b3a0040024a064e6f726d616c520b0880e2cfaa0610959aef3a72076b7562657376637a066e6f64652d31',
  },
  node: {
    text: `metadata { name: "node-2" labels { key: "topology.kubernetes.io/zone" value: "z1" } }
spec { podCIDR: "10.244.1.0/24" podCIDRs: "10.244.1.0/24" taints { key: "k" effect: "NoSchedule" } }
status {
  capacity { key: "cpu" value { string: "4" } }
  capacity { key: "memory" value { string: "8Gi" } }
  conditions { type: "Ready" status: "True" lastHeartbeatTime { seconds: 0 } reason: "KubeletReady" }
  addresses { type: "InternalIP" address: "192.0.2.22" }
  daemonEndpoints { kubeletEndpoint { Port: 10250 } }
  nodeInfo { kubeletVersion: "v1.33.1" }
}`,
    apiVersion: 'v1',
    kind: 'Node',
    hex:
      '6b3873000a0a0a02763112044e6f646512ca010a2b0a066e6f64652d325a210a1b746f706f6c6f67792e6b756265726e' +
      '657465732e696f2f7a6f6e6512027a31122f0a0d31302e3234342e312e302f32342a0f0a016b1a0a4e6f536368656475' +
      '6c653a0d31302e3234342e312e302f32341a6a0a0a0a0363707512030a01340a0f0a066d656d6f727912050a03384769' +
      '221f0a0552656164791204547275651a0208002a0c4b7562656c657452656164792a180a0a496e7465726e616c495012' +
      '0a3139322e302e322e323232050a03088a503a093a0776312e33332e31',
  },
  fullService: {
    text: `metadata { name: "full" namespace: "default" annotations { key: "note" value: "x" } finalizers: "example.com/keep" }
spec {
  ports { name: "http" protocol: "TCP" appProtocol: "" port: 80 targetPort { type: 1 strVal: "web" } nodePort: 30081 }
  selector { key: "app" value: "full" }
  type: "LoadBalancer"
  externalIPs: "198.51.100.7"
  sessionAffinity: "ClientIP"
  sessionAffinityConfig { clientIP { timeoutSeconds: 600 } }
  publishNotReadyAddresses: false
  healthCheckNodePort: 0
  ipFamilies: "IPv4"
  ipFamilyPolicy: "SingleStack"
  allocateLoadBalancerNodePorts: false
  internalTrafficPolicy: "Local"
  externalTrafficPolicy: "Local"
}
status { loadBalancer { ingress { ip: "203.0.113.9" ipMode: "VIP" ports { port: 80 protocol: "TCP" error: "" } } } }`,
    apiVersion: 'v1',
    kind: 'Service',
    hex:
      '6b3873000a0d0a02763112075365727669636512d7010a2c0a0466756c6c1a0764656661756c7462090a046e6f746512' +
      '017872106578616d706c652e636f6d2f6b6565701283010a1c0a046874747012035443501850220708011a0377656228' +
      '81eb013200120b0a03617070120466756c6c220c4c6f616442616c616e6365722a0c3139382e35312e3130302e373a08' +
      '436c69656e7449505a054c6f63616c6000680072050a0308d8048a010b53696e676c65537461636b9a010449507634a0' +
      '0100b201054c6f63616c1a210a1f0a1d0a0b3230332e302e3131332e391a035649502209085012035443501a00',
  },
} as const satisfies Record<string, ProtocFixture>;
