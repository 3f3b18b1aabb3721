// core/v1 Pod and the messages below it (containers, volumes, probes, security contexts,
// affinity, status), with the v1.33 field numbers of upstream's generated.proto and the
// pointer, omitempty and inline facts of the Go types.
// upstream: staging/src/k8s.io/api/core/v1/{generated.proto,types.go},
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/{generated.proto,types.go} (LabelSelector)
import { IntOrString, ObjectMeta, Quantity, Time } from './messages.js';
import { list, map, message, one, type MessageSpec } from './schema.js';

const PTR = { pointer: true } as const;
const KEEP = { keep: true } as const;

// --- meta/v1 ---------------------------------------------------------------------------------

const LabelSelectorRequirement: MessageSpec = message('LabelSelectorRequirement', [one(1, 'key', 'string', KEEP), one(2, 'operator', 'string', KEEP), list(3, 'values', 'string')]);

export const LabelSelector: MessageSpec = message('LabelSelector', [map(1, 'matchLabels', 'string'), list(2, 'matchExpressions', () => LabelSelectorRequirement)]);

// --- references and selectors ----------------------------------------------------------------

const LocalObjectReference: MessageSpec = message('LocalObjectReference', [one(1, 'name', 'string')]);
const INLINE_REFERENCE = one(1, 'localObjectReference', () => LocalObjectReference, { go: 'LocalObjectReference', inline: true });

const ObjectFieldSelector: MessageSpec = message('ObjectFieldSelector', [one(1, 'apiVersion', 'string', { go: 'APIVersion' }), one(2, 'fieldPath', 'string', KEEP)]);

const ResourceFieldSelector: MessageSpec = message('ResourceFieldSelector', [
  one(1, 'containerName', 'string'),
  one(2, 'resource', 'string', KEEP),
  one(3, 'divisor', () => Quantity),
]);

const KeyToPath: MessageSpec = message('KeyToPath', [one(1, 'key', 'string', KEEP), one(2, 'path', 'string', KEEP), one(3, 'mode', 'int32', PTR)]);

const TypedLocalObjectReference: MessageSpec = message('TypedLocalObjectReference', [
  one(1, 'apiGroup', 'string', { go: 'APIGroup', pointer: true, keep: true }),
  one(2, 'kind', 'string', KEEP),
  one(3, 'name', 'string', KEEP),
]);

const TypedObjectReference: MessageSpec = message('TypedObjectReference', [
  one(1, 'apiGroup', 'string', { go: 'APIGroup', pointer: true, keep: true }),
  one(2, 'kind', 'string', KEEP),
  one(3, 'name', 'string', KEEP),
  one(4, 'namespace', 'string', PTR),
]);

// --- containers ------------------------------------------------------------------------------

const ContainerPort: MessageSpec = message('ContainerPort', [
  one(1, 'name', 'string'),
  one(2, 'hostPort', 'int32'),
  one(3, 'containerPort', 'int32', KEEP),
  one(4, 'protocol', 'string'),
  one(5, 'hostIP', 'string', { go: 'HostIP' }),
]);

const EnvFromSource: MessageSpec = message('EnvFromSource', [
  one(1, 'prefix', 'string'),
  one(2, 'configMapRef', () => message('ConfigMapEnvSource', [INLINE_REFERENCE, one(2, 'optional', 'bool', PTR)]), PTR),
  one(3, 'secretRef', () => message('SecretEnvSource', [INLINE_REFERENCE, one(2, 'optional', 'bool', PTR)]), PTR),
]);

const EnvVarSource: MessageSpec = message('EnvVarSource', [
  one(1, 'fieldRef', () => ObjectFieldSelector, PTR),
  one(2, 'resourceFieldRef', () => ResourceFieldSelector, PTR),
  one(3, 'configMapKeyRef', () => message('ConfigMapKeySelector', [INLINE_REFERENCE, one(2, 'key', 'string', KEEP), one(3, 'optional', 'bool', PTR)]), PTR),
  one(4, 'secretKeyRef', () => message('SecretKeySelector', [INLINE_REFERENCE, one(2, 'key', 'string', KEEP), one(3, 'optional', 'bool', PTR)]), PTR),
]);

const EnvVar: MessageSpec = message('EnvVar', [one(1, 'name', 'string', KEEP), one(2, 'value', 'string'), one(3, 'valueFrom', () => EnvVarSource, PTR)]);

const ResourceRequirements: MessageSpec = message('ResourceRequirements', [
  map(1, 'limits', () => Quantity),
  map(2, 'requests', () => Quantity),
  list(3, 'claims', () => message('ResourceClaim', [one(1, 'name', 'string', KEEP), one(2, 'request', 'string')])),
]);

const ContainerResizePolicy: MessageSpec = message('ContainerResizePolicy', [one(1, 'resourceName', 'string', KEEP), one(2, 'restartPolicy', 'string', KEEP)]);

const VolumeMount: MessageSpec = message('VolumeMount', [
  one(1, 'name', 'string', KEEP),
  one(2, 'readOnly', 'bool'),
  one(7, 'recursiveReadOnly', 'string', PTR),
  one(3, 'mountPath', 'string', KEEP),
  one(4, 'subPath', 'string'),
  one(5, 'mountPropagation', 'string', PTR),
  one(6, 'subPathExpr', 'string'),
]);

const VolumeDevice: MessageSpec = message('VolumeDevice', [one(1, 'name', 'string', KEEP), one(2, 'devicePath', 'string', KEEP)]);

const ExecAction: MessageSpec = message('ExecAction', [list(1, 'command', 'string')]);

const HTTPGetAction: MessageSpec = message('HTTPGetAction', [
  one(1, 'path', 'string'),
  one(2, 'port', () => IntOrString, KEEP),
  one(3, 'host', 'string'),
  one(4, 'scheme', 'string'),
  list(5, 'httpHeaders', () => message('HTTPHeader', [one(1, 'name', 'string', KEEP), one(2, 'value', 'string', KEEP)]), { go: 'HTTPHeaders' }),
]);

const TCPSocketAction: MessageSpec = message('TCPSocketAction', [one(1, 'port', () => IntOrString, KEEP), one(2, 'host', 'string')]);

const ProbeHandler: MessageSpec = message('ProbeHandler', [
  one(1, 'exec', () => ExecAction, PTR),
  one(2, 'httpGet', () => HTTPGetAction, { go: 'HTTPGet', pointer: true }),
  one(3, 'tcpSocket', () => TCPSocketAction, { go: 'TCPSocket', pointer: true }),
  one(4, 'grpc', () => message('GRPCAction', [one(1, 'port', 'int32', KEEP), one(2, 'service', 'string', { pointer: true, keep: true })]), { go: 'GRPC', pointer: true }),
]);

const Probe: MessageSpec = message('Probe', [
  one(1, 'handler', () => ProbeHandler, { go: 'ProbeHandler', inline: true }),
  one(2, 'initialDelaySeconds', 'int32'),
  one(3, 'timeoutSeconds', 'int32'),
  one(4, 'periodSeconds', 'int32'),
  one(5, 'successThreshold', 'int32'),
  one(6, 'failureThreshold', 'int32'),
  one(7, 'terminationGracePeriodSeconds', 'int64', PTR),
]);

const LifecycleHandler: MessageSpec = message('LifecycleHandler', [
  one(1, 'exec', () => ExecAction, PTR),
  one(2, 'httpGet', () => HTTPGetAction, { go: 'HTTPGet', pointer: true }),
  one(3, 'tcpSocket', () => TCPSocketAction, { go: 'TCPSocket', pointer: true }),
  one(4, 'sleep', () => message('SleepAction', [one(1, 'seconds', 'int64', KEEP)]), PTR),
]);

const Lifecycle: MessageSpec = message('Lifecycle', [
  one(1, 'postStart', () => LifecycleHandler, PTR),
  one(2, 'preStop', () => LifecycleHandler, PTR),
  one(3, 'stopSignal', 'string', PTR),
]);

const SELinuxOptions: MessageSpec = message('SELinuxOptions', [one(1, 'user', 'string'), one(2, 'role', 'string'), one(3, 'type', 'string'), one(4, 'level', 'string')]);

const WindowsSecurityContextOptions: MessageSpec = message('WindowsSecurityContextOptions', [
  one(1, 'gmsaCredentialSpecName', 'string', { go: 'GMSACredentialSpecName', pointer: true }),
  one(2, 'gmsaCredentialSpec', 'string', { go: 'GMSACredentialSpec', pointer: true }),
  one(3, 'runAsUserName', 'string', PTR),
  one(4, 'hostProcess', 'bool', PTR),
]);

const SeccompProfile: MessageSpec = message('SeccompProfile', [one(1, 'type', 'string', KEEP), one(2, 'localhostProfile', 'string', PTR)]);
const AppArmorProfile: MessageSpec = message('AppArmorProfile', [one(1, 'type', 'string', KEEP), one(2, 'localhostProfile', 'string', PTR)]);

const SecurityContext: MessageSpec = message('SecurityContext', [
  one(1, 'capabilities', () => message('Capabilities', [list(1, 'add', 'string'), list(2, 'drop', 'string')]), PTR),
  one(2, 'privileged', 'bool', PTR),
  one(3, 'seLinuxOptions', () => SELinuxOptions, { go: 'SELinuxOptions', pointer: true }),
  one(10, 'windowsOptions', () => WindowsSecurityContextOptions, PTR),
  one(4, 'runAsUser', 'int64', PTR),
  one(8, 'runAsGroup', 'int64', PTR),
  one(5, 'runAsNonRoot', 'bool', PTR),
  one(6, 'readOnlyRootFilesystem', 'bool', PTR),
  one(7, 'allowPrivilegeEscalation', 'bool', PTR),
  one(9, 'procMount', 'string', PTR),
  one(11, 'seccompProfile', () => SeccompProfile, PTR),
  one(12, 'appArmorProfile', () => AppArmorProfile, PTR),
]);

/** The fields Container and EphemeralContainerCommon share, in their order and with their numbers. */
const CONTAINER_FIELDS = [
  one(1, 'name', 'string', KEEP),
  one(2, 'image', 'string'),
  list(3, 'command', 'string'),
  list(4, 'args', 'string'),
  one(5, 'workingDir', 'string'),
  list(6, 'ports', () => ContainerPort),
  list(19, 'envFrom', () => EnvFromSource),
  list(7, 'env', () => EnvVar),
  one(8, 'resources', () => ResourceRequirements),
  list(23, 'resizePolicy', () => ContainerResizePolicy),
  one(24, 'restartPolicy', 'string', PTR),
  list(9, 'volumeMounts', () => VolumeMount),
  list(21, 'volumeDevices', () => VolumeDevice),
  one(10, 'livenessProbe', () => Probe, PTR),
  one(11, 'readinessProbe', () => Probe, PTR),
  one(22, 'startupProbe', () => Probe, PTR),
  one(12, 'lifecycle', () => Lifecycle, PTR),
  one(13, 'terminationMessagePath', 'string'),
  one(20, 'terminationMessagePolicy', 'string'),
  one(14, 'imagePullPolicy', 'string'),
  one(15, 'securityContext', () => SecurityContext, PTR),
  one(16, 'stdin', 'bool'),
  one(17, 'stdinOnce', 'bool'),
  one(18, 'tty', 'bool', { go: 'TTY' }),
];

const Container: MessageSpec = message('Container', CONTAINER_FIELDS);

const EphemeralContainer: MessageSpec = message('EphemeralContainer', [
  one(1, 'ephemeralContainerCommon', () => message('EphemeralContainerCommon', CONTAINER_FIELDS), { go: 'EphemeralContainerCommon', inline: true }),
  one(2, 'targetContainerName', 'string'),
]);

// --- volumes ---------------------------------------------------------------------------------

const SecretRef = (n: number, options: { keep?: true } = {}) => one(n, 'secretRef', () => LocalObjectReference, { pointer: true, ...options });

const DownwardAPIVolumeFile: MessageSpec = message('DownwardAPIVolumeFile', [
  one(1, 'path', 'string', KEEP),
  one(2, 'fieldRef', () => ObjectFieldSelector, PTR),
  one(3, 'resourceFieldRef', () => ResourceFieldSelector, PTR),
  one(4, 'mode', 'int32', PTR),
]);

const VolumeProjection: MessageSpec = message('VolumeProjection', [
  one(1, 'secret', () => message('SecretProjection', [INLINE_REFERENCE, list(2, 'items', () => KeyToPath), one(4, 'optional', 'bool', PTR)]), PTR),
  one(2, 'downwardAPI', () => message('DownwardAPIProjection', [list(1, 'items', () => DownwardAPIVolumeFile)]), { go: 'DownwardAPI', pointer: true }),
  one(3, 'configMap', () => message('ConfigMapProjection', [INLINE_REFERENCE, list(2, 'items', () => KeyToPath), one(4, 'optional', 'bool', PTR)]), PTR),
  one(
    4,
    'serviceAccountToken',
    () => message('ServiceAccountTokenProjection', [one(1, 'audience', 'string'), one(2, 'expirationSeconds', 'int64', PTR), one(3, 'path', 'string', KEEP)]),
    PTR,
  ),
  one(
    5,
    'clusterTrustBundle',
    () =>
      message('ClusterTrustBundleProjection', [
        one(1, 'name', 'string', PTR),
        one(2, 'signerName', 'string', PTR),
        one(3, 'labelSelector', () => LabelSelector, PTR),
        one(5, 'optional', 'bool', PTR),
        one(4, 'path', 'string', KEEP),
      ]),
    PTR,
  ),
]);

const PersistentVolumeClaimSpec: MessageSpec = message('PersistentVolumeClaimSpec', [
  list(1, 'accessModes', 'string'),
  one(4, 'selector', () => LabelSelector, PTR),
  one(2, 'resources', () => message('VolumeResourceRequirements', [map(1, 'limits', () => Quantity), map(2, 'requests', () => Quantity)])),
  one(3, 'volumeName', 'string'),
  one(5, 'storageClassName', 'string', PTR),
  one(6, 'volumeMode', 'string', PTR),
  one(7, 'dataSource', () => TypedLocalObjectReference, PTR),
  one(8, 'dataSourceRef', () => TypedObjectReference, PTR),
  one(9, 'volumeAttributesClassName', 'string', PTR),
]);

const VolumeSource: MessageSpec = message('VolumeSource', [
  one(1, 'hostPath', () => message('HostPathVolumeSource', [one(1, 'path', 'string', KEEP), one(2, 'type', 'string', PTR)]), PTR),
  one(2, 'emptyDir', () => message('EmptyDirVolumeSource', [one(1, 'medium', 'string'), one(2, 'sizeLimit', () => Quantity, PTR)]), PTR),
  one(
    3,
    'gcePersistentDisk',
    () =>
      message('GCEPersistentDiskVolumeSource', [one(1, 'pdName', 'string', { go: 'PDName', keep: true }), one(2, 'fsType', 'string', { go: 'FSType' }), one(3, 'partition', 'int32'), one(4, 'readOnly', 'bool')]),
    { go: 'GCEPersistentDisk', pointer: true },
  ),
  one(
    4,
    'awsElasticBlockStore',
    () =>
      message('AWSElasticBlockStoreVolumeSource', [one(1, 'volumeID', 'string', KEEP), one(2, 'fsType', 'string', { go: 'FSType' }), one(3, 'partition', 'int32'), one(4, 'readOnly', 'bool')]),
    { go: 'AWSElasticBlockStore', pointer: true },
  ),
  one(5, 'gitRepo', () => message('GitRepoVolumeSource', [one(1, 'repository', 'string', KEEP), one(2, 'revision', 'string'), one(3, 'directory', 'string')]), PTR),
  one(
    6,
    'secret',
    () => message('SecretVolumeSource', [one(1, 'secretName', 'string'), list(2, 'items', () => KeyToPath), one(3, 'defaultMode', 'int32', PTR), one(4, 'optional', 'bool', PTR)]),
    PTR,
  ),
  one(7, 'nfs', () => message('NFSVolumeSource', [one(1, 'server', 'string', KEEP), one(2, 'path', 'string', KEEP), one(3, 'readOnly', 'bool')]), { go: 'NFS', pointer: true }),
  one(
    8,
    'iscsi',
    () =>
      message('ISCSIVolumeSource', [
        one(1, 'targetPortal', 'string', KEEP),
        one(2, 'iqn', 'string', { go: 'IQN', keep: true }),
        one(3, 'lun', 'int32', KEEP),
        one(4, 'iscsiInterface', 'string', { go: 'ISCSIInterface' }),
        one(5, 'fsType', 'string', { go: 'FSType' }),
        one(6, 'readOnly', 'bool'),
        list(7, 'portals', 'string'),
        one(8, 'chapAuthDiscovery', 'bool', { go: 'DiscoveryCHAPAuth' }),
        one(11, 'chapAuthSession', 'bool', { go: 'SessionCHAPAuth' }),
        SecretRef(10),
        one(12, 'initiatorName', 'string', PTR),
      ]),
    { go: 'ISCSI', pointer: true },
  ),
  one(
    9,
    'glusterfs',
    () => message('GlusterfsVolumeSource', [one(1, 'endpoints', 'string', { go: 'EndpointsName', keep: true }), one(2, 'path', 'string', KEEP), one(3, 'readOnly', 'bool')]),
    PTR,
  ),
  one(10, 'persistentVolumeClaim', () => message('PersistentVolumeClaimVolumeSource', [one(1, 'claimName', 'string', KEEP), one(2, 'readOnly', 'bool')]), PTR),
  one(
    11,
    'rbd',
    () =>
      message('RBDVolumeSource', [
        list(1, 'monitors', 'string', { go: 'CephMonitors', keep: true }),
        one(2, 'image', 'string', { go: 'RBDImage', keep: true }),
        one(3, 'fsType', 'string', { go: 'FSType' }),
        one(4, 'pool', 'string', { go: 'RBDPool' }),
        one(5, 'user', 'string', { go: 'RadosUser' }),
        one(6, 'keyring', 'string'),
        SecretRef(7),
        one(8, 'readOnly', 'bool'),
      ]),
    { go: 'RBD', pointer: true },
  ),
  one(
    12,
    'flexVolume',
    () =>
      message('FlexVolumeSource', [one(1, 'driver', 'string', KEEP), one(2, 'fsType', 'string', { go: 'FSType' }), SecretRef(3), one(4, 'readOnly', 'bool'), map(5, 'options', 'string')]),
    PTR,
  ),
  one(
    13,
    'cinder',
    () => message('CinderVolumeSource', [one(1, 'volumeID', 'string', KEEP), one(2, 'fsType', 'string', { go: 'FSType' }), one(3, 'readOnly', 'bool'), SecretRef(4)]),
    PTR,
  ),
  one(
    14,
    'cephfs',
    () =>
      message('CephFSVolumeSource', [
        list(1, 'monitors', 'string', KEEP),
        one(2, 'path', 'string'),
        one(3, 'user', 'string'),
        one(4, 'secretFile', 'string'),
        SecretRef(5),
        one(6, 'readOnly', 'bool'),
      ]),
    { go: 'CephFS', pointer: true },
  ),
  one(15, 'flocker', () => message('FlockerVolumeSource', [one(1, 'datasetName', 'string'), one(2, 'datasetUUID', 'string')]), PTR),
  one(
    16,
    'downwardAPI',
    () => message('DownwardAPIVolumeSource', [list(1, 'items', () => DownwardAPIVolumeFile), one(2, 'defaultMode', 'int32', PTR)]),
    { go: 'DownwardAPI', pointer: true },
  ),
  one(
    17,
    'fc',
    () =>
      message('FCVolumeSource', [
        list(1, 'targetWWNs', 'string', { go: 'TargetWWNs' }),
        one(2, 'lun', 'int32', PTR),
        one(3, 'fsType', 'string', { go: 'FSType' }),
        one(4, 'readOnly', 'bool'),
        list(5, 'wwids', 'string', { go: 'WWIDs' }),
      ]),
    { go: 'FC', pointer: true },
  ),
  one(18, 'azureFile', () => message('AzureFileVolumeSource', [one(1, 'secretName', 'string', KEEP), one(2, 'shareName', 'string', KEEP), one(3, 'readOnly', 'bool')]), PTR),
  one(
    19,
    'configMap',
    () => message('ConfigMapVolumeSource', [INLINE_REFERENCE, list(2, 'items', () => KeyToPath), one(3, 'defaultMode', 'int32', PTR), one(4, 'optional', 'bool', PTR)]),
    PTR,
  ),
  one(
    20,
    'vsphereVolume',
    () =>
      message('VsphereVirtualDiskVolumeSource', [
        one(1, 'volumePath', 'string', KEEP),
        one(2, 'fsType', 'string', { go: 'FSType' }),
        one(3, 'storagePolicyName', 'string'),
        one(4, 'storagePolicyID', 'string'),
      ]),
    PTR,
  ),
  one(
    21,
    'quobyte',
    () =>
      message('QuobyteVolumeSource', [
        one(1, 'registry', 'string', KEEP),
        one(2, 'volume', 'string', KEEP),
        one(3, 'readOnly', 'bool'),
        one(4, 'user', 'string'),
        one(5, 'group', 'string'),
        one(6, 'tenant', 'string'),
      ]),
    PTR,
  ),
  one(
    22,
    'azureDisk',
    () =>
      message('AzureDiskVolumeSource', [
        one(1, 'diskName', 'string', KEEP),
        one(2, 'diskURI', 'string', { go: 'DataDiskURI', keep: true }),
        one(3, 'cachingMode', 'string', PTR),
        one(4, 'fsType', 'string', { go: 'FSType', pointer: true }),
        one(5, 'readOnly', 'bool', PTR),
        one(6, 'kind', 'string', PTR),
      ]),
    PTR,
  ),
  one(
    23,
    'photonPersistentDisk',
    () => message('PhotonPersistentDiskVolumeSource', [one(1, 'pdID', 'string', { go: 'PdID', keep: true }), one(2, 'fsType', 'string', { go: 'FSType' })]),
    PTR,
  ),
  one(26, 'projected', () => message('ProjectedVolumeSource', [list(1, 'sources', () => VolumeProjection, KEEP), one(2, 'defaultMode', 'int32', PTR)]), PTR),
  one(
    24,
    'portworxVolume',
    () => message('PortworxVolumeSource', [one(1, 'volumeID', 'string', KEEP), one(2, 'fsType', 'string', { go: 'FSType' }), one(3, 'readOnly', 'bool')]),
    PTR,
  ),
  one(
    25,
    'scaleIO',
    () =>
      message('ScaleIOVolumeSource', [
        one(1, 'gateway', 'string', KEEP),
        one(2, 'system', 'string', KEEP),
        SecretRef(3, KEEP),
        one(4, 'sslEnabled', 'bool', { go: 'SSLEnabled' }),
        one(5, 'protectionDomain', 'string'),
        one(6, 'storagePool', 'string'),
        one(7, 'storageMode', 'string'),
        one(8, 'volumeName', 'string'),
        one(9, 'fsType', 'string', { go: 'FSType' }),
        one(10, 'readOnly', 'bool'),
      ]),
    { go: 'ScaleIO', pointer: true },
  ),
  one(
    27,
    'storageos',
    () =>
      message('StorageOSVolumeSource', [
        one(1, 'volumeName', 'string'),
        one(2, 'volumeNamespace', 'string'),
        one(3, 'fsType', 'string', { go: 'FSType' }),
        one(4, 'readOnly', 'bool'),
        SecretRef(5),
      ]),
    { go: 'StorageOS', pointer: true },
  ),
  one(
    28,
    'csi',
    () =>
      message('CSIVolumeSource', [
        one(1, 'driver', 'string', KEEP),
        one(2, 'readOnly', 'bool', PTR),
        one(3, 'fsType', 'string', { go: 'FSType', pointer: true }),
        map(4, 'volumeAttributes', 'string'),
        one(5, 'nodePublishSecretRef', () => LocalObjectReference, PTR),
      ]),
    { go: 'CSI', pointer: true },
  ),
  one(
    29,
    'ephemeral',
    () =>
      message('EphemeralVolumeSource', [
        one(1, 'volumeClaimTemplate', () => message('PersistentVolumeClaimTemplate', [one(1, 'metadata', () => ObjectMeta, { go: 'ObjectMeta' }), one(2, 'spec', () => PersistentVolumeClaimSpec, KEEP)]), PTR),
      ]),
    PTR,
  ),
  one(30, 'image', () => message('ImageVolumeSource', [one(1, 'reference', 'string'), one(2, 'pullPolicy', 'string')]), PTR),
]);

const Volume: MessageSpec = message('Volume', [one(1, 'name', 'string', KEEP), one(2, 'volumeSource', () => VolumeSource, { go: 'VolumeSource', inline: true })]);

// --- scheduling ------------------------------------------------------------------------------

const NodeSelectorRequirement: MessageSpec = message('NodeSelectorRequirement', [one(1, 'key', 'string', KEEP), one(2, 'operator', 'string', KEEP), list(3, 'values', 'string')]);

const NodeSelectorTerm: MessageSpec = message('NodeSelectorTerm', [list(1, 'matchExpressions', () => NodeSelectorRequirement), list(2, 'matchFields', () => NodeSelectorRequirement)]);

const PodAffinityTerm: MessageSpec = message('PodAffinityTerm', [
  one(1, 'labelSelector', () => LabelSelector, PTR),
  list(2, 'namespaces', 'string'),
  one(3, 'topologyKey', 'string', KEEP),
  one(4, 'namespaceSelector', () => LabelSelector, PTR),
  list(5, 'matchLabelKeys', 'string'),
  list(6, 'mismatchLabelKeys', 'string'),
]);

const WeightedPodAffinityTerm: MessageSpec = message('WeightedPodAffinityTerm', [one(1, 'weight', 'int32', KEEP), one(2, 'podAffinityTerm', () => PodAffinityTerm, KEEP)]);

const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

const Affinity: MessageSpec = message('Affinity', [
  one(
    1,
    'nodeAffinity',
    () =>
      message('NodeAffinity', [
        one(1, REQUIRED, () => message('NodeSelector', [list(1, 'nodeSelectorTerms', () => NodeSelectorTerm, KEEP)]), PTR),
        list(2, PREFERRED, () => message('PreferredSchedulingTerm', [one(1, 'weight', 'int32', KEEP), one(2, 'preference', () => NodeSelectorTerm, KEEP)])),
      ]),
    PTR,
  ),
  one(2, 'podAffinity', () => message('PodAffinity', [list(1, REQUIRED, () => PodAffinityTerm), list(2, PREFERRED, () => WeightedPodAffinityTerm)]), PTR),
  one(3, 'podAntiAffinity', () => message('PodAntiAffinity', [list(1, REQUIRED, () => PodAffinityTerm), list(2, PREFERRED, () => WeightedPodAffinityTerm)]), PTR),
]);

const Toleration: MessageSpec = message('Toleration', [
  one(1, 'key', 'string'),
  one(2, 'operator', 'string'),
  one(3, 'value', 'string'),
  one(4, 'effect', 'string'),
  one(5, 'tolerationSeconds', 'int64', PTR),
]);

const PodSecurityContext: MessageSpec = message('PodSecurityContext', [
  one(1, 'seLinuxOptions', () => SELinuxOptions, { go: 'SELinuxOptions', pointer: true }),
  one(8, 'windowsOptions', () => WindowsSecurityContextOptions, PTR),
  one(2, 'runAsUser', 'int64', PTR),
  one(6, 'runAsGroup', 'int64', PTR),
  one(3, 'runAsNonRoot', 'bool', PTR),
  list(4, 'supplementalGroups', 'int64'),
  one(12, 'supplementalGroupsPolicy', 'string', PTR),
  one(5, 'fsGroup', 'int64', { go: 'FSGroup', pointer: true }),
  list(7, 'sysctls', () => message('Sysctl', [one(1, 'name', 'string', KEEP), one(2, 'value', 'string', KEEP)])),
  one(9, 'fsGroupChangePolicy', 'string', { go: 'FSGroupChangePolicy', pointer: true }),
  one(10, 'seccompProfile', () => SeccompProfile, PTR),
  one(11, 'appArmorProfile', () => AppArmorProfile, PTR),
  one(13, 'seLinuxChangePolicy', 'string', { go: 'SELinuxChangePolicy', pointer: true }),
]);

const TopologySpreadConstraint: MessageSpec = message('TopologySpreadConstraint', [
  one(1, 'maxSkew', 'int32', KEEP),
  one(2, 'topologyKey', 'string', KEEP),
  one(3, 'whenUnsatisfiable', 'string', KEEP),
  one(4, 'labelSelector', () => LabelSelector, PTR),
  one(5, 'minDomains', 'int32', PTR),
  one(6, 'nodeAffinityPolicy', 'string', PTR),
  one(7, 'nodeTaintsPolicy', 'string', PTR),
  list(8, 'matchLabelKeys', 'string'),
]);

export const PodSpec: MessageSpec = message('PodSpec', [
  list(1, 'volumes', () => Volume),
  list(20, 'initContainers', () => Container),
  list(2, 'containers', () => Container, KEEP),
  list(34, 'ephemeralContainers', () => EphemeralContainer),
  one(3, 'restartPolicy', 'string'),
  one(4, 'terminationGracePeriodSeconds', 'int64', PTR),
  one(5, 'activeDeadlineSeconds', 'int64', PTR),
  one(6, 'dnsPolicy', 'string', { go: 'DNSPolicy' }),
  map(7, 'nodeSelector', 'string'),
  one(8, 'serviceAccountName', 'string'),
  one(9, 'serviceAccount', 'string', { go: 'DeprecatedServiceAccount' }),
  one(21, 'automountServiceAccountToken', 'bool', PTR),
  one(10, 'nodeName', 'string'),
  one(11, 'hostNetwork', 'bool'),
  one(12, 'hostPID', 'bool', { go: 'HostPID' }),
  one(13, 'hostIPC', 'bool', { go: 'HostIPC' }),
  one(27, 'shareProcessNamespace', 'bool', PTR),
  one(14, 'securityContext', () => PodSecurityContext, PTR),
  list(15, 'imagePullSecrets', () => LocalObjectReference),
  one(16, 'hostname', 'string'),
  one(17, 'subdomain', 'string'),
  one(18, 'affinity', () => Affinity, PTR),
  one(19, 'schedulerName', 'string'),
  list(22, 'tolerations', () => Toleration),
  list(23, 'hostAliases', () => message('HostAlias', [one(1, 'ip', 'string', { go: 'IP', keep: true }), list(2, 'hostnames', 'string')])),
  one(24, 'priorityClassName', 'string'),
  one(25, 'priority', 'int32', PTR),
  one(
    26,
    'dnsConfig',
    () =>
      message('PodDNSConfig', [
        list(1, 'nameservers', 'string'),
        list(2, 'searches', 'string'),
        list(3, 'options', () => message('PodDNSConfigOption', [one(1, 'name', 'string'), one(2, 'value', 'string', PTR)])),
      ]),
    { go: 'DNSConfig', pointer: true },
  ),
  list(28, 'readinessGates', () => message('PodReadinessGate', [one(1, 'conditionType', 'string', KEEP)])),
  one(29, 'runtimeClassName', 'string', PTR),
  one(30, 'enableServiceLinks', 'bool', PTR),
  one(31, 'preemptionPolicy', 'string', PTR),
  map(32, 'overhead', () => Quantity),
  list(33, 'topologySpreadConstraints', () => TopologySpreadConstraint),
  one(35, 'setHostnameAsFQDN', 'bool', { go: 'SetHostnameAsFQDN', pointer: true }),
  one(36, 'os', () => message('PodOS', [one(1, 'name', 'string', KEEP)]), { go: 'OS', pointer: true }),
  one(37, 'hostUsers', 'bool', PTR),
  list(38, 'schedulingGates', () => message('PodSchedulingGate', [one(1, 'name', 'string', KEEP)])),
  list(
    39,
    'resourceClaims',
    () => message('PodResourceClaim', [one(1, 'name', 'string', KEEP), one(3, 'resourceClaimName', 'string', PTR), one(4, 'resourceClaimTemplateName', 'string', PTR)]),
  ),
  one(40, 'resources', () => ResourceRequirements, PTR),
]);

// --- status ----------------------------------------------------------------------------------

const PodCondition: MessageSpec = message('PodCondition', [
  one(1, 'type', 'string', KEEP),
  one(7, 'observedGeneration', 'int64'),
  one(2, 'status', 'string', KEEP),
  one(3, 'lastProbeTime', () => Time),
  one(4, 'lastTransitionTime', () => Time),
  one(5, 'reason', 'string'),
  one(6, 'message', 'string'),
]);

const ContainerStateTerminated: MessageSpec = message('ContainerStateTerminated', [
  one(1, 'exitCode', 'int32', KEEP),
  one(2, 'signal', 'int32'),
  one(3, 'reason', 'string'),
  one(4, 'message', 'string'),
  one(5, 'startedAt', () => Time),
  one(6, 'finishedAt', () => Time),
  one(7, 'containerID', 'string', { go: 'ContainerID' }),
]);

const ContainerState: MessageSpec = message('ContainerState', [
  one(1, 'waiting', () => message('ContainerStateWaiting', [one(1, 'reason', 'string'), one(2, 'message', 'string')]), PTR),
  one(2, 'running', () => message('ContainerStateRunning', [one(1, 'startedAt', () => Time)]), PTR),
  one(3, 'terminated', () => ContainerStateTerminated, PTR),
]);

const ContainerStatus: MessageSpec = message('ContainerStatus', [
  one(1, 'name', 'string', KEEP),
  one(2, 'state', () => ContainerState),
  one(3, 'lastState', () => ContainerState, { go: 'LastTerminationState' }),
  one(4, 'ready', 'bool', KEEP),
  one(5, 'restartCount', 'int32', KEEP),
  one(6, 'image', 'string', KEEP),
  one(7, 'imageID', 'string', { go: 'ImageID', keep: true }),
  one(8, 'containerID', 'string', { go: 'ContainerID' }),
  one(9, 'started', 'bool', PTR),
  map(10, 'allocatedResources', () => Quantity),
  one(11, 'resources', () => ResourceRequirements, PTR),
  list(
    12,
    'volumeMounts',
    () =>
      message('VolumeMountStatus', [one(1, 'name', 'string', KEEP), one(2, 'mountPath', 'string', KEEP), one(3, 'readOnly', 'bool'), one(4, 'recursiveReadOnly', 'string', PTR)]),
  ),
  one(
    13,
    'user',
    () =>
      message('ContainerUser', [
        one(1, 'linux', () => message('LinuxContainerUser', [one(1, 'uid', 'int64', { go: 'UID', keep: true }), one(2, 'gid', 'int64', { go: 'GID', keep: true }), list(3, 'supplementalGroups', 'int64')]), PTR),
      ]),
    PTR,
  ),
  list(
    14,
    'allocatedResourcesStatus',
    () =>
      message('ResourceStatus', [
        one(1, 'name', 'string', KEEP),
        list(2, 'resources', () => message('ResourceHealth', [one(1, 'resourceID', 'string', { go: 'ResourceID', keep: true }), one(2, 'health', 'string')])),
      ]),
  ),
  one(15, 'stopSignal', 'string', PTR),
]);

const PodStatus: MessageSpec = message('PodStatus', [
  one(17, 'observedGeneration', 'int64'),
  one(1, 'phase', 'string'),
  list(2, 'conditions', () => PodCondition),
  one(3, 'message', 'string'),
  one(4, 'reason', 'string'),
  one(11, 'nominatedNodeName', 'string'),
  one(5, 'hostIP', 'string', { go: 'HostIP' }),
  list(16, 'hostIPs', () => message('HostIP', [one(1, 'ip', 'string', { go: 'IP', keep: true })]), { go: 'HostIPs' }),
  one(6, 'podIP', 'string', { go: 'PodIP' }),
  list(12, 'podIPs', () => message('PodIP', [one(1, 'ip', 'string', { go: 'IP', keep: true })]), { go: 'PodIPs' }),
  one(7, 'startTime', () => Time, PTR),
  list(10, 'initContainerStatuses', () => ContainerStatus),
  list(8, 'containerStatuses', () => ContainerStatus),
  one(9, 'qosClass', 'string', { go: 'QOSClass' }),
  list(13, 'ephemeralContainerStatuses', () => ContainerStatus),
  one(14, 'resize', 'string'),
  list(15, 'resourceClaimStatuses', () => message('PodResourceClaimStatus', [one(1, 'name', 'string', KEEP), one(2, 'resourceClaimName', 'string', PTR)])),
]);

export const Pod: MessageSpec = message('Pod', [one(1, 'metadata', () => ObjectMeta, { go: 'ObjectMeta' }), one(2, 'spec', () => PodSpec), one(3, 'status', () => PodStatus)]);
