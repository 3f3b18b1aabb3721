// Label, annotation and controller names the endpoint controllers read and write.
// upstream: staging/src/k8s.io/api/core/v1/well_known_labels.go and annotation_key_constants.go,
//           staging/src/k8s.io/api/discovery/v1/well_known_labels.go,
//           staging/src/k8s.io/client-go/tools/leaderelection/resourcelock/interface.go

/** Set on a headless Service's Endpoints and EndpointSlices. upstream: v1.IsHeadlessService */
export const LABEL_HEADLESS = 'service.kubernetes.io/headless';
/** Endpoints the mirroring controller must leave alone. upstream: discovery/v1 LabelSkipMirror */
export const LABEL_SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
/** Set when the endpoints controller dropped addresses over capacity. upstream: v1.EndpointsOverCapacity */
export const ANNOTATION_OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
/** upstream: v1.EndpointsLastChangeTriggerTime */
export const ANNOTATION_LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
/** kubectl apply's record. upstream: v1.LastAppliedConfigAnnotation */
export const ANNOTATION_LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Marks an Endpoints used as a leader-election lock. upstream: resourcelock.LeaderElectionRecordAnnotationKey */
export const ANNOTATION_LEADER = 'control-plane.alpha.kubernetes.io/leader';

/** The managed-by value of the EndpointSlice controller. upstream: pkg/controller/endpointslice (ControllerName) */
export const ENDPOINTSLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
/** The managed-by value of the mirroring controller. upstream: pkg/controller/endpointslicemirroring (ControllerName) */
export const ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';
