// The save view through a memo (createSaveViewMemo), as a node agent takes it after each sync:
// the same text as without a memo, and only the rule lines new since the last view are parsed
// and printed (counted, not timed).
import { describe, expect, test } from 'vitest';
import { createSaveViewMemo, iptablesSaveView } from './save-view.js';

/** A nat table of `n` Services' SEP chains, each one DNAT rule; `changed` gives Service i another endpoint. */
function natText(n: number, changed: ReadonlyMap<number, string> = new Map()): string {
  const lines = ['*nat', ':KUBE-MARK-MASQ - [0:0]'];
  for (let i = 0; i < n; i++) lines.push(`:KUBE-SEP-${String(i).padStart(16, 'A')} - [0:0]`);
  lines.push('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000');
  for (let i = 0; i < n; i++) {
    const ip = changed.get(i) ?? `10.244.${i >> 8}.${i & 255}`;
    lines.push(`-A KUBE-SEP-${String(i).padStart(16, 'A')} -m comment --comment default/svc-${i}:http -m tcp -p tcp -j DNAT --to-destination ${ip}:8080`);
  }
  lines.push('COMMIT', '');
  return lines.join('\n');
}

const plain = (text: string) => iptablesSaveView(text, { backend: 'nft' });

describe('iptablesSaveView with a memo', () => {
  test('each view equals the view without a memo, over a sequence of changed, grown, shrunk and malformed texts', () => {
    const memo = createSaveViewMemo();
    const texts = [
      natText(50),
      natText(50, new Map([[3, '10.250.0.1']])),
      natText(60, new Map([[3, '10.250.0.1']])),
      natText(10),
      '*nat\n-A NOWHERE -j ACCEPT\nCOMMIT\n',
      '*nat\n:KUBE-X - [0:0]\n-A KUBE-X -m tcp -p tcp --dport\nCOMMIT\n',
      natText(10),
    ];
    for (const text of texts) expect(iptablesSaveView(text, { backend: 'nft', memo })).toStrictEqual(plain(text));
    expect(memo.stats().views).toBe(texts.length);
  });

  test('a view after one rule line changed parses and prints that one line only', () => {
    const memo = createSaveViewMemo();
    iptablesSaveView(natText(200), { memo });
    // 201 rule lines: the MARK rule and one DNAT rule per Service.
    expect(memo.stats()).toStrictEqual({ views: 1, linesParsed: 201, rulesPrinted: 201, resets: 0 });
    const changed = iptablesSaveView(natText(200, new Map([[17, '10.250.0.9']])), { memo });
    expect(memo.stats()).toStrictEqual({ views: 2, linesParsed: 202, rulesPrinted: 202, resets: 0 });
    expect(changed.ok && changed.value).toContain('-A KUBE-SEP-AAAAAAAAAAAAAA17 -p tcp -m comment --comment "default/svc-17:http" -m tcp -j DNAT --to-destination 10.250.0.9:8080');
    // The same text again: nothing new.
    iptablesSaveView(natText(200, new Map([[17, '10.250.0.9']])), { memo });
    expect(memo.stats()).toMatchObject({ views: 3, linesParsed: 202, rulesPrinted: 202 });
  });

  test('the memo starts afresh once it holds more than twice the last text\'s rule lines plus 1024, so it does not grow with the history', () => {
    const memo = createSaveViewMemo();
    iptablesSaveView(natText(1500), { memo });
    expect(memo.stats().resets).toBe(0);
    // 11 rule lines now, 1501 + 0 held (the 11 are among them): 1501 > 2 × 11 + 1024.
    const small = iptablesSaveView(natText(10), { memo });
    expect(memo.stats().resets).toBe(1);
    expect(small).toStrictEqual(plain(natText(10)));
    // After the reset every line is new again.
    iptablesSaveView(natText(10), { memo });
    expect(memo.stats()).toMatchObject({ views: 3, linesParsed: 1501 + 11, resets: 1 });
    expect(iptablesSaveView(natText(10), { memo })).toStrictEqual(plain(natText(10)));
  });
});
