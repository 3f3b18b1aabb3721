import { describe, expect, it } from 'vitest';
import { readmeExample } from './readme-example.js';

const fence = '```';
const readme = [
  '# @kubesvc/x',
  '',
  '## Example',
  '',
  `${fence}ts`,
  "import { a } from '@kubesvc/x';",
  'console.log(a);',
  fence,
  '',
  'prints',
  '',
  fence,
  '1',
  fence,
  '',
].join('\n');

describe('readmeExample', () => {
  it('takes the ts block under the heading and the block after "prints"', () => {
    expect(readmeExample(readme)).toEqual({ code: "import { a } from '@kubesvc/x';\nconsole.log(a);\n", expected: '1\n' });
  });

  it('says which section is missing', () => {
    expect(() => readmeExample('# nothing\n')).toThrow(/no section matching/);
    expect(() => readmeExample('## Example\n\nno code\n')).toThrow(/has no ```ts block/);
  });
});
