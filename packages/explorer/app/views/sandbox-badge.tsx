// The mark of a pod that is a real network namespace (`kubesvc up --dataplane netns`): requests
// to and from it go through the kernel, and the trace page can replay from it.
export function SandboxBadge() {
  return (
    <span class="badge" data-testid="sandbox-badge" title="a real network namespace: requests to it go through the kernel's rules">
      netns
    </span>
  );
}
