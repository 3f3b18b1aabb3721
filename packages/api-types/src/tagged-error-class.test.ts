import { describe, expect, it } from 'vitest';
import { TaggedErrorClass } from './result.js';

class ErrListen extends TaggedErrorClass('ErrListen')<{ readonly code: string }> {}
class ErrOther extends TaggedErrorClass('ErrOther') {}

describe('TaggedErrorClass', () => {
  it('makes a thrown Error that carries its tag, its message and its fields', () => {
    const cause = new Error('bind failed');
    const thrown = (() => {
      try {
        throw new ErrListen('listen EADDRINUSE 127.0.0.1:6443', { code: 'EADDRINUSE' }, { cause });
      } catch (e) {
        return e;
      }
    })();
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toBeInstanceOf(ErrListen);
    expect(thrown).not.toBeInstanceOf(ErrOther);
    const e = thrown as ErrListen;
    expect(e._tag).toBe('ErrListen');
    expect(e.code).toBe('EADDRINUSE');
    expect(e.message).toBe('listen EADDRINUSE 127.0.0.1:6443');
    expect(e.cause).toBe(cause);
    expect(String(e)).toBe('ErrListen: listen EADDRINUSE 127.0.0.1:6443');
    expect(e.stack).toContain('ErrListen: listen EADDRINUSE');
  });

  it('does not let a field overwrite the tag, the message or the cause', () => {
    const e = new ErrOther('real message', { _tag: 'Forged', message: 'forged', cause: 'forged', extra: 1 });
    expect(e._tag).toBe('ErrOther');
    expect(e.message).toBe('real message');
    expect(e.cause).toBeUndefined();
    expect((e as unknown as { extra: number }).extra).toBe(1);
  });
});
