// The Warning events the repair loops record, as plain data for the controller that runs them
// to turn into Event objects. upstream records them with an events/v1 recorder: the reason, the
// action (ClusterIPAllocation, PortAllocation), the message, and the Service as the regarding
// object (pkg/registry/core/service/ipallocator/controller/repair.go,
// portallocator/controller/repair.go).

export interface RepairEvent<Reason extends string = string> {
  readonly type: 'Warning';
  readonly reason: Reason;
  readonly message: string;
  /** events/v1 action: 'ClusterIPAllocation' or 'PortAllocation'. */
  readonly action: string;
  /** The recorder's component: 'ipallocator-repair-controller' or 'portallocator-repair-controller'. */
  readonly reportingController: string;
  /** The Service the event is about. */
  readonly service: { readonly namespace: string; readonly name: string };
}

/** The error value a repair run returns when upstream's runOnce returns an error. */
export interface ErrRepair {
  readonly _tag: 'ErrRepair';
  readonly message: string;
}
