// `kubesvc up --feature-gates ... --emulated-version ...` through the real bin: a refused value
// ends it with exit 2 and kube-apiserver's message before anything is opened (the data dir is
// not even made), and an accepted one is named in the start-up line and the summary.
// upstream: staging/src/k8s.io/component-base/featuregate/feature_gate.go,
//           staging/src/k8s.io/component-base/compatibility/registry.go and version.go
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNMODELLED_GATE_NOTE } from '@kubesvc/api-types';
import { runBin } from '../run-bin.fixtures.js';
import { startUp, e2eScope } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-gates-');

describe('kubesvc up --feature-gates / --emulated-version', () => {
  it.each<[readonly string[], string]>([
    [['--feature-gates', 'NFTablesProxyMode=true'], `unrecognized feature gate: NFTablesProxyMode (${UNMODELLED_GATE_NOTE})`],
    [['--feature-gates', 'DisableAllocatorDualWrite=yes'], 'invalid value of DisableAllocatorDualWrite=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--feature-gates', 'MultiCIDRServiceAllocator'], 'missing bool value for MultiCIDRServiceAllocator'],
    [['--emulated-version', '1.30'], 'emulation version 1.30 is not between [1.31, 1.33.0]'],
    [['--emulated-version', '1.33.1'], 'patch version not allowed, got: kube=1.33.1'],
    [
      ['--emulated-version', '1.30', '--feature-gates', 'DisableAllocatorDualWrite=true'],
      'cannot set feature gate DisableAllocatorDualWrite to true, feature is PreAlpha at emulated version 1.30',
    ],
    // Repeated flags add up, as kube-apiserver's do: here to two kube versions.
    [['--emulated-version', '1.32', '--emulated-version', '1.31'], 'duplicate version flag, kube=1.32 and kube=1.31'],
  ])('refuses %j with exit code 2 and the message, before it opens anything', async (flags, message) => {
    const dataDir = join(tempDir(), 'data');
    const r = await runBin(['up', '--data-dir', dataDir, '--secure-port', '0', '--dns-port', '0', '--advertise-address', '192.0.2.10', ...flags], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(`error: ${message}`);
    expect(r.stderr).not.toContain('✓');
    expect(existsSync(dataDir)).toBe(false);
  }, 90_000);

  it('names the allocator the gates chose in a start-up line and in the summary, and warns as kube-apiserver when a GA gate is set', async () => {
    const up = await startUp(children, tempDir(), ['--feature-gates', 'MultiCIDRServiceAllocator=false']);
    expect(up.stderr()).toContain('W Setting GA feature gate MultiCIDRServiceAllocator=false. It will be removed in a future release.\n');
    expect(up.stderr()).toContain('✓ ClusterIPs: the RangeAllocation bitmap (MultiCIDRServiceAllocator off)\n');
    expect(up.stdout()).toContain('  ClusterIPs       the RangeAllocation bitmap (MultiCIDRServiceAllocator off)\n');
    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);

    const dualWriteOff = await startUp(children, tempDir(), ['--feature-gates', 'kube:DisableAllocatorDualWrite=true']);
    expect(dualWriteOff.stdout()).toContain('  ClusterIPs       IPAddress objects (MultiCIDRServiceAllocator), dual write to the RangeAllocation off (DisableAllocatorDualWrite)\n');
    expect(dualWriteOff.stderr()).not.toContain('W Setting');
    dualWriteOff.child.kill('SIGTERM');
    expect(await dualWriteOff.exited).toBe(0);
  }, 180_000);

  // The default, 1.33's (IPAddress objects with the dual write), is checked in up.e2e.test.ts.
  it("emulating 1.32 runs 1.32's default, the bitmap", async () => {
    const older = await startUp(children, tempDir(), ['--emulated-version', '1.32']);
    expect(older.stdout()).toContain('  ClusterIPs       the RangeAllocation bitmap (MultiCIDRServiceAllocator off)\n');
    older.child.kill('SIGTERM');
    expect(await older.exited).toBe(0);
  }, 120_000);
});
