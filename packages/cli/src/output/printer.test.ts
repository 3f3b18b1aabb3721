// The one `-o` parser and the `-o name` printer, against kubectl's texts: NoCompatiblePrinterError
// lists the allowed formats sorted (print_flags.go), the name printer writes `kind/name` for the
// core group and `kind.group/name` for others, the kind in lower case (printers/name.go).
import { describe, expect, it } from 'vitest';
import { formatNames, groupOf, outputFormat, parseOutput, parseOutputFormat } from './printer.js';

describe('parseOutput', () => {
  it("takes a listed format or jsonpath=TEMPLATE, and refuses others with kubectl's message, the allowed formats sorted", () => {
    expect(parseOutput('json', ['text', 'json'])).toEqual({ kind: 'format', format: 'json' });
    expect(parseOutput('jsonpath={.kind}', ['text', 'json'])).toEqual({ kind: 'jsonpath', template: '{.kind}' });
    expect(() => parseOutput('wide', ['text', 'json'])).toThrow('unable to match a printer suitable for the output format "wide", allowed formats are: json,jsonpath,text');
    expect(() => parseOutput('jsonpath=', ['text'])).toThrow('template format specified but no template given');
  });

  it('without jsonpath, a jsonpath= value is a format like any other the command has not', () => {
    expect(() => parseOutputFormat('jsonpath={.a}', ['table', 'name', 'wide'])).toThrow('unable to match a printer suitable for the output format "jsonpath={.a}", allowed formats are: name,table,wide');
    expect(outputFormat('name', ['table', 'name'])).toBe('name');
    expect(() => outputFormat('', ['yaml', 'json'])).toThrow('unable to match a printer suitable for the output format "", allowed formats are: json,yaml');
  });
});

describe('-o name', () => {
  it.each([
    [{ kind: 'Service', name: 'web' }, 'service/web\n'],
    [{ kind: 'EndpointSlice', group: 'discovery.k8s.io', name: 'web-abc' }, 'endpointslice.discovery.k8s.io/web-abc\n'],
    [{ kind: 'IPAddress', group: 'networking.k8s.io', name: '10.96.0.1' }, 'ipaddress.networking.k8s.io/10.96.0.1\n'],
    [{ kind: 'Deployment', group: 'apps', name: 'api' }, 'deployment.apps/api\n'],
    [{ kind: 'Pod', group: '', name: 'p' }, 'pod/p\n'],
  ])('%j prints %j', (object, line) => {
    expect(formatNames([object])).toBe(line);
  });

  it('the group of an apiVersion', () => {
    expect([groupOf('v1'), groupOf('discovery.k8s.io/v1'), groupOf(undefined)]).toEqual(['', 'discovery.k8s.io', '']);
  });
});
