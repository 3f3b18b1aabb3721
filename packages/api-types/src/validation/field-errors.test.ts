// Expected strings come from upstream's own tests where they exist:
//   staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors_test.go
//     (TestNotSupported, TestErrorBody, TestToAggregate)
//   staging/src/k8s.io/apimachinery/pkg/api/errors/errors_test.go (TestNewInvalid)
// and otherwise from the format strings in field/errors.go (v1.32) and messages a v1.32+
// apiserver returns, e.g. `metadata.annotations: Too long: may not be more than 262144 bytes`.
import { describe, expect, it } from 'vitest';
import { fieldPath } from './field-path.js';
import {
  dedupeFieldErrors,
  duplicate,
  errorBody,
  forbidden,
  goStringSlice,
  goValue,
  internal,
  invalid,
  invalidError,
  notFound,
  notSupported,
  renderAggregate,
  renderFieldError,
  required,
  tooLong,
  tooMany,
} from './field-errors.js';

const f = fieldPath('f');

describe('error bodies (field/errors_test.go)', () => {
  it('lists supported values quoted (TestNotSupported)', () => {
    expect(errorBody(notSupported(f, 'v', ['a', 'b', 'c']))).toBe(
      'Unsupported value: "v": supported values: "a", "b", "c"',
    );
  });

  it('prints numbers bare and nil as the quoted string "null" (TestErrorBody)', () => {
    expect(errorBody(invalid(fieldPath('bla'), 2, 'details'))).toBe('Invalid value: 2: details');
    expect(errorBody(invalid(fieldPath('bla'), null, 'details'))).toBe('Invalid value: "null": details');
    expect(errorBody(invalid(fieldPath('bla'), undefined, 'details'))).toBe('Invalid value: "null": details');
  });

  it('omits the value for Required, Forbidden, TooLong and Internal', () => {
    expect(renderFieldError(required(fieldPath('metadata', 'name'), 'name or generateName is required'))).toBe(
      'metadata.name: Required value: name or generateName is required',
    );
    expect(renderFieldError(required(fieldPath('metadata', 'namespace')))).toBe('metadata.namespace: Required value');
    expect(renderFieldError(forbidden(fieldPath('spec', 'clusterIPs'), 'may not be set for ExternalName services'))).toBe(
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    );
    expect(renderFieldError(internal(fieldPath('spec', 'clusterIPs'), new Error('boom')))).toBe(
      'spec.clusterIPs: Internal error: boom',
    );
  });

  it('uses the v1.32 TooLong wording and never prints the value', () => {
    expect(renderFieldError(tooLong(fieldPath('metadata', 'annotations'), 'x'.repeat(10), 262144))).toBe(
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    );
    expect(errorBody(tooLong(f, '', -1))).toBe('Too long: value is too long');
  });

  it('prints the count for TooMany unless it is unknown', () => {
    expect(renderFieldError(tooMany(fieldPath('endpoints'), 1001, 1000))).toBe(
      'endpoints: Too many: 1001: must have at most 1000 items',
    );
    expect(renderFieldError(tooMany(fieldPath('endpoints'), -1, 1000))).toBe(
      'endpoints: Too many: must have at most 1000 items',
    );
    expect(errorBody(tooMany(f, 5, -1))).toBe('Too many: 5: has too many items');
  });

  it('prints Duplicate and NotFound with the value and no detail', () => {
    expect(renderFieldError(duplicate(fieldPath('spec', 'ports').index(1).child('name'), 'http'))).toBe(
      'spec.ports[1].name: Duplicate value: "http"',
    );
    expect(renderFieldError(notFound(fieldPath('x'), 'y'))).toBe('x: Not found: "y"');
    expect(errorBody(notSupported(f, 'v', []))).toBe('Unsupported value: "v"');
  });

  it('leaves out the trailing colon when the detail is empty', () => {
    expect(errorBody(invalid(f, 'v', ''))).toBe('Invalid value: "v"');
  });
});

describe('bad value rendering (Go fmt)', () => {
  it('quotes strings like strconv.Quote', () => {
    expect(errorBody(invalid(f, 'a"b\\c', ''))).toBe('Invalid value: "a\\"b\\\\c"');
    expect(errorBody(invalid(f, 'tab\there\nnl\u0001\u007f', ''))).toBe('Invalid value: "tab\\there\\nnl\\x01\\x7f"');
    // Printable non-ASCII stays; a non-printable rune (NBSP, a format character) is escaped.
    expect(errorBody(invalid(f, 'é\u00a0\u{e0001}😀', ''))).toBe('Invalid value: "é\\u00a0\\U000e0001😀"');
  });

  it('prints booleans and floats like %v', () => {
    expect(errorBody(invalid(f, true, ''))).toBe('Invalid value: true');
    expect(errorBody(invalid(f, 0.5, ''))).toBe('Invalid value: 0.5');
    expect(errorBody(invalid(f, 100000.5, ''))).toBe('Invalid value: 100000.5');
    expect(errorBody(invalid(f, 1234567.5, ''))).toBe('Invalid value: 1.2345675e+06');
    expect(errorBody(invalid(f, 0.00001, ''))).toBe('Invalid value: 1e-05');
    expect(errorBody(invalid(f, -3, ''))).toBe('Invalid value: -3');
  });

  it('prints string lists as a Go []string and string maps as map[string]string with sorted keys', () => {
    expect(
      renderFieldError(
        invalid(
          fieldPath('spec', 'clusterIPs'),
          ['10.0.0.1', '10.0.0.2'],
          'may specify no more than one IP for each IP family',
        ),
      ),
    ).toBe('spec.clusterIPs: Invalid value: []string{"10.0.0.1", "10.0.0.2"}: may specify no more than one IP for each IP family');
    expect(errorBody(invalid(f, goStringSlice(undefined), 'x'))).toBe('Invalid value: []string(nil): x');
    expect(errorBody(invalid(f, [], 'x'))).toBe('Invalid value: []string{}: x');
    expect(errorBody(invalid(f, { b: '2', a: '1' }, 'x'))).toBe('Invalid value: map[string]string{"a":"1", "b":"2"}: x');
  });

  it('prints a GoValue verbatim', () => {
    const key = goValue('core.ServicePort{Name:"", Protocol:"TCP", Port:80}');
    expect(renderFieldError(duplicate(fieldPath('spec', 'ports').index(1), key))).toBe(
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", Port:80}',
    );
  });
});

describe('ToAggregate (field/errors_test.go TestToAggregate)', () => {
  const e = invalid(f, 'v', 'd');
  it('is empty for no errors, the message for one, deduplicated by message', () => {
    expect(renderAggregate([])).toBe('');
    expect(renderAggregate([e])).toBe('f: Invalid value: "v": d');
    expect(renderAggregate([e, invalid(f, 'v', 'd')])).toBe('f: Invalid value: "v": d');
    expect(dedupeFieldErrors([e, invalid(f, 'v', 'd')])).toHaveLength(1);
  });

  it('brackets two or more distinct messages', () => {
    expect(renderAggregate([e, internal(fieldPath(''), 'e')])).toBe('[f: Invalid value: "v": d, []: Internal error: e]');
  });
});

describe('invalidError (api/errors/errors_test.go TestNewInvalid)', () => {
  const path = fieldPath('field[0].name');
  const cases = [
    [duplicate(path, 'bar'), 'Kind "name" is invalid: field[0].name: Duplicate value: "bar"'],
    [invalid(path, 'bar', 'detail'), 'Kind "name" is invalid: field[0].name: Invalid value: "bar": detail'],
    [notFound(path, 'bar'), 'Kind "name" is invalid: field[0].name: Not found: "bar"'],
    [notSupported(path, 'bar', []), 'Kind "name" is invalid: field[0].name: Unsupported value: "bar"'],
    [required(path, ''), 'Kind "name" is invalid: field[0].name: Required value'],
  ] as const;

  it.each(cases)('builds the message and one cause per error (%#)', (err, message) => {
    const { message: msg, status } = invalidError('Kind', 'name', [err]);
    expect(msg).toBe(message);
    expect(status.message).toBe(message);
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.details).toEqual({
      name: 'name',
      kind: 'Kind',
      causes: [{ reason: err.type, message: errorBody(err), field: 'field[0].name' }],
    });
  });

  it('says just "is invalid" with no errors, and omits the empty causes list', () => {
    const { message, status } = invalidError('Kind', 'name', []);
    expect(message).toBe('Kind "name" is invalid');
    expect(status.details).toEqual({ name: 'name', kind: 'Kind' });
  });

  it('serializes like the apiserver: Status fields in upstream order, core group omitted', () => {
    const { status } = invalidError('Service', 'web', [required(fieldPath('spec', 'ports'))]);
    expect(JSON.stringify(status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' +
        '"message":"Service \\"web\\" is invalid: spec.ports: Required value","reason":"Invalid",' +
        '"details":{"name":"web","kind":"Service","causes":[{"reason":"FieldValueRequired",' +
        '"message":"Required value","field":"spec.ports"}]},"code":422}',
    );
  });

  it('qualifies a non-core kind with its group, and quotes the name like %q', () => {
    const { message, status } = invalidError({ group: 'discovery.k8s.io', kind: 'EndpointSlice' }, 'a"b', [
      required(fieldPath('addressType')),
    ]);
    expect(message).toBe('EndpointSlice.discovery.k8s.io "a\\"b" is invalid: addressType: Required value');
    expect(status.details?.group).toBe('discovery.k8s.io');
  });

  it('keeps duplicate errors as causes while the message shows them once', () => {
    const e = invalid(fieldPath('spec', 'type'), 'X', 'bad');
    const { message, status } = invalidError('Service', 'web', [e, e]);
    expect(message).toBe('Service "web" is invalid: spec.type: Invalid value: "X": bad');
    expect(status.details?.causes).toHaveLength(2);
  });

  it('brackets several distinct errors in the message', () => {
    const { message } = invalidError('Service', 'web', [
      required(fieldPath('metadata', 'namespace')),
      required(fieldPath('spec', 'ports')),
    ]);
    expect(message).toBe('Service "web" is invalid: [metadata.namespace: Required value, spec.ports: Required value]');
  });
});
