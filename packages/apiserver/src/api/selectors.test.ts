// Label and field selectors against upstream's grammar and texts (the cases follow
// staging/src/k8s.io/apimachinery/pkg/labels/selector_test.go and fields/selector_test.go).
import { describe, expect, it } from 'vitest';
import { checkFieldSelector, fieldsMatch, parseFieldSelector } from './field-selector.js';
import { formatLabelSelector, labelsMatch, parseLabelSelector } from './label-selector.js';

function parsed(text: string) {
  const r = parseLabelSelector(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function parseError(text: string): string {
  const r = parseLabelSelector(text);
  if (r.ok) throw new Error(`${text} parsed`);
  expect(r.error._tag).toBe('ErrLabelSelector');
  return r.error.message;
}

describe('label selectors', () => {
  it('parses every operator and prints the canonical form, keys sorted', () => {
    expect(formatLabelSelector(parsed('x=a,y=b,z=c'))).toBe('x=a,y=b,z=c');
    expect(formatLabelSelector(parsed('z=c,x==a'))).toBe('x==a,z=c');
    expect(formatLabelSelector(parsed('x!=a,y in (b,a),!w,v, u notin ()'))).toBe('u notin (),v,!w,x!=a,y in (a,b)');
    expect(formatLabelSelector(parsed('x>1,y<7'))).toBe('x>1,y<7');
    expect(formatLabelSelector(parsed('x='))).toBe('x=');
    expect(formatLabelSelector(parsed('x in (foo,,baz),y,z notin ()'))).toBe('x in (,baz,foo),y,z notin ()');
    expect(parsed('')).toEqual([]);
    expect(parsed(' \t ')).toEqual([]);
  });

  it('reads "in" and "notin" as values inside a value list', () => {
    expect(formatLabelSelector(parsed('x in (in,notin)'))).toBe('x in (in,notin)');
  });

  it('matches as upstream: != and notin hold for a missing key, = and in do not', () => {
    const labels = { app: 'web', tier: 'fe', n: '5' };
    expect(labelsMatch(parsed('app=web'), labels)).toBe(true);
    expect(labelsMatch(parsed('app==web,tier=fe'), labels)).toBe(true);
    expect(labelsMatch(parsed('app=db'), labels)).toBe(false);
    expect(labelsMatch(parsed('env!=prod'), labels)).toBe(true);
    expect(labelsMatch(parsed('env notin (prod)'), labels)).toBe(true);
    expect(labelsMatch(parsed('env in (prod)'), labels)).toBe(false);
    expect(labelsMatch(parsed('env=prod'), labels)).toBe(false);
    expect(labelsMatch(parsed('app'), labels)).toBe(true);
    expect(labelsMatch(parsed('!app'), labels)).toBe(false);
    expect(labelsMatch(parsed('!env'), labels)).toBe(true);
    expect(labelsMatch(parsed('n>4'), labels)).toBe(true);
    expect(labelsMatch(parsed('n<5'), labels)).toBe(false);
    expect(labelsMatch(parsed('app>4'), labels)).toBe(false);
    expect(labelsMatch(parsed('app in (db,web)'), labels)).toBe(true);
    expect(labelsMatch(parsed('x='), { x: '' })).toBe(true);
    expect(labelsMatch(parsed('x='), {})).toBe(false);
    expect(labelsMatch([], undefined)).toBe(true);
  });

  it('refuses malformed selectors with the parser texts', () => {
    expect(parseError('app in (x')).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError('x in (')).toBe("unable to parse requirement: found '', expected: ',', ')' or identifier");
    expect(parseError('x in a')).toBe("unable to parse requirement: found 'a' expected: '('");
    expect(parseError('x=a b')).toBe("found 'b', expected: ',' or 'end of string'");
    expect(parseError('x==a==b')).toBe("found '==', expected: ',' or 'end of string'");
    expect(parseError('x=a,')).toBe("found '', expected: identifier after ','");
    expect(parseError(',x')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('!')).toBe("unable to parse requirement: found '', expected: identifier");
    expect(parseError('x=(')).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(parseError('x (a)')).toBe("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('x=!=a')).toBe("unable to parse requirement: found '!=', expected: identifier");
    expect(parseError('x>a')).toBe(`unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`);
  });

  it('validates keys and values as NewRequirement does', () => {
    expect(parseError('-x=a')).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    expect(parseError('x=-a')).toBe(
      `unable to parse requirement: values[0][x]: Invalid value: "-a": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  });
});

describe('field selectors', () => {
  function fields(resource: string, text: string) {
    const p = parseFieldSelector(text);
    if (!p.ok) throw new Error(p.error.message);
    return checkFieldSelector(resource, p.value);
  }

  it('parses =, == and != and unescapes values', () => {
    const p = parseFieldSelector('metadata.name=a\\,b,metadata.namespace!=x,,metadata.name==c');
    expect(p).toEqual({
      ok: true,
      value: [
        // Terms are sorted as strings first: "metadata.name==c" < "metadata.name=a\\,b".
        { field: 'metadata.name', operator: '=', value: 'c' },
        { field: 'metadata.name', operator: '=', value: 'a,b' },
        { field: 'metadata.namespace', operator: '!=', value: 'x' },
      ],
    });
  });

  it('refuses what it cannot understand', () => {
    expect(parseFieldSelector('metadata.name')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" } });
    expect(parseFieldSelector('a=b\\x')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: 'invalid field selector: invalid escape sequence: \\x' } });
    expect(parseFieldSelector('a=b=c')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: 'invalid field selector: unescaped character in value: =' } });
  });

  it('knows each resource’s fields and refuses the others as upstream', () => {
    expect(fields('services', 'spec.foo=1')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: 'field label not supported: spec.foo' } });
    expect(fields('services', 'spec.clusterIP=10.0.0.1').ok).toBe(true);
    expect(fields('endpoints', 'spec.foo=1')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"' } });
    expect(fields('namespaces', 'metadata.namespace=x')).toEqual({ ok: false, error: { _tag: 'ErrFieldSelector', message: 'field label not supported: metadata.namespace' } });
    expect(fields('pods', 'spec.host=n1')).toEqual({ ok: true, value: [{ field: 'spec.nodeName', operator: '=', value: 'n1' }] });
  });

  it('matches events by involvedObject, source and type, as kubectl describe asks', () => {
    const event = {
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default' },
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web', uid: 'u1' },
      source: { component: 'service-controller' },
      reason: 'Synced',
      type: 'Normal',
    };
    const sel = fields('events', 'involvedObject.name=web,involvedObject.namespace=default,involvedObject.kind=Service,involvedObject.uid=u1');
    if (!sel.ok) throw new Error(sel.error.message);
    expect(fieldsMatch('events', sel.value, event)).toBe(true);
    const other = fields('events', 'source=kubelet');
    if (!other.ok) throw new Error(other.error.message);
    expect(fieldsMatch('events', other.value, event)).toBe(false);
    const not = fields('events', 'type!=Warning');
    if (!not.ok) throw new Error(not.error.message);
    expect(fieldsMatch('events', not.value, event)).toBe(true);
  });

  it('matches pods on spec.nodeName and status.phase, a missing field as the empty string', () => {
    const pod = { kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
    const sel = fields('pods', 'spec.nodeName=n1,status.phase=Running');
    if (!sel.ok) throw new Error(sel.error.message);
    expect(fieldsMatch('pods', sel.value, pod)).toBe(true);
    const unscheduled = fields('pods', 'spec.nodeName=');
    if (!unscheduled.ok) throw new Error(unscheduled.error.message);
    expect(fieldsMatch('pods', unscheduled.value, { kind: 'Pod', metadata: { name: 'q' }, spec: {} })).toBe(true);
    expect(fieldsMatch('pods', unscheduled.value, pod)).toBe(false);
  });
});
