import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-write.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-write-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('writes pieces of bytes one after the other, views of larger memory as they are, and leaves no temporary file', async () => {
    const encoder = new TextEncoder();
    const memory = encoder.encode('xx*filter\n:KUBE-SERVICES - [0:0]\nCOMMIT\nyy');
    // Views inside larger memory (offsets that are not 0), as a sync's pieces are.
    const pieces = [memory.subarray(2, 10), encoder.encode(':KUBE-SERVICES - [0:0]\n'), memory.subarray(33, 40)];
    const path = join(dir, 'last-sync.txt');
    await writeFileAtomic(path, pieces, 0o600);
    expect(readFileSync(path, 'utf8')).toBe('*filter\n:KUBE-SERVICES - [0:0]\nCOMMIT\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Written over whole by the next content, whatever its form.
    await writeFileAtomic(path, 'text', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('text');
    await writeFileAtomic(path, [], 0o600);
    expect(readFileSync(path, 'utf8')).toBe('');
    expect(readdirSync(dir)).toEqual(['last-sync.txt']);
  });
});
