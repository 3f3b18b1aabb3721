// The entry points that take outside data refuse a wrong shape with an error value.
import { describe, expect, it } from 'vitest';
import { portAllocatorFromSnapshot } from './port-allocator.js';
import { parsePortRange } from './port-range.js';
import { repairNodePorts } from './repair.js';

describe('wrong shapes are error values', () => {
  it('parsePortRange with a number', () => {
    expect(parsePortRange(30000 as never)).toEqual({
      ok: false,
      error: { _tag: 'ErrPortRange', message: 'unable to parse port range: expected a string such as "30000-32767", got number 30000' },
    });
  });

  it('a snapshot whose range is not text', () => {
    expect(portAllocatorFromSnapshot({ range: 5, data: '' } as never)).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'snapshot range: expected a string, got number 5' },
    });
  });

  it('repair with a port range given as text', () => {
    const result = repairNodePorts({ portRange: '30000-32767', services: [] } as never);
    expect(result.ok ? '' : result.error.message).toBe('repairNodePorts: portRange: expected { base, size } (parsePortRange\'s value), got the string "30000-32767"');
  });
});
