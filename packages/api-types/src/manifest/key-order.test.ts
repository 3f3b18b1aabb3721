import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareYamlKeys } from './key-order.js';

describe('yaml key order', () => {
  // The string keys of go-yaml v2's TestSortedOutput (encode_test.go), in the order the
  // encoder must print them.
  const goYamlOrder = [
    '', '.1', '.2', '.a', '1', '2', 'a!10', 'a/0001', 'a/002', 'a/3', 'a/10', 'a/11', 'a/0012', 'a/100',
    'a~10', 'ab/1', 'b/1', 'b/01', 'b/2', 'b/02', 'b/3', 'b/03', 'b1', 'b01', 'b3', 'c2.10', 'c10.2',
    'd1', 'd7', 'd7abc', 'd12', 'd12a',
  ];

  it("sorts go-yaml v2's own test keys into the order its test expects", () => {
    const shuffled = [...goYamlOrder].reverse();
    shuffled.push(...shuffled.splice(0, 7));
    expect(shuffled.sort(compareYamlKeys)).toEqual(goYamlOrder);
  });

  it('puts numbered labels in natural order, unlike JSON', () => {
    const keys = ['app10', 'app2', 'app1'];
    expect([...keys].sort(compareYamlKeys)).toEqual(['app1', 'app2', 'app10']);
    expect([...keys].sort(compareCodePoints)).toEqual(['app1', 'app10', 'app2']);
  });
});

describe('json key order', () => {
  it('is code point order, as Go sorts UTF-8 bytes', () => {
    // U+FF21 (a BMP letter) sorts before U+1F600 in UTF-8, although its UTF-16 unit is larger.
    expect(['\u{1F600}', '\uFF21', 'Z', 'a'].sort(compareCodePoints)).toEqual(['Z', 'a', '\uFF21', '\u{1F600}']);
  });
});
