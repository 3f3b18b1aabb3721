// DNS records and answers as text, in the presentation form dig prints (RFC 1035 §5.1 master
// file format, with BIND's escapes and column layout), so that a CLI can print answers and
// tests can compare them with the real dig's output line for line.
// upstream: BIND 9 lib/dns/masterdump.c (dns_master_style_default: TTL, class, type and rdata
// at columns 24, 32, 40 and 48, reached with tabs of 8), lib/dns/name.c dns_name_totext (name
// escapes), lib/dns/rdata.c txt_totext (TXT escapes), bin/dig/dig.c (section headings).
import type { DnsRecord, Question, Resolution } from './records.js';

const encoder = new TextEncoder();

/** Characters a name label escapes with a backslash. upstream: BIND lib/dns/name.c dns_name_totext */
const NAME_SPECIALS = new Set(['"', '(', ')', ';', '\\', '@', '$']);

function decimalEscape(byte: number): string {
  return `\\${String(byte).padStart(3, '0')}`;
}

function escapeLabel(label: string): string {
  let out = '';
  for (const byte of encoder.encode(label)) {
    const ch = String.fromCharCode(byte);
    if (NAME_SPECIALS.has(ch)) out += `\\${ch}`;
    else if (byte <= 0x20 || byte >= 0x7f) out += decimalEscape(byte);
    else out += ch;
  }
  return out;
}

/** A domain name as dig prints it: absolute, with a final dot; the root is `.`. */
export function formatName(name: string): string {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare === '') return '.';
  return `${bare.split('.').map(escapeLabel).join('.')}.`;
}

/** A TXT character-string, quoted, `"` and `\` escaped, other non-printing bytes as \DDD. upstream: BIND lib/dns/rdata.c txt_totext */
function quoteText(text: string): string {
  let out = '"';
  for (const byte of encoder.encode(text)) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte >= 0x7f) out += decimalEscape(byte);
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** The rdata of a record in presentation form: what dig prints after the type. */
export function formatRdata(record: DnsRecord): string {
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return record.data;
    case 'CNAME':
    case 'PTR':
    case 'NS':
      return formatName(record.data);
    case 'SRV': {
      const { priority, weight, port, target } = record.data;
      return `${priority} ${weight} ${port} ${formatName(target)}`;
    }
    case 'TXT':
      return record.data.map(quoteText).join(' ');
    case 'SOA': {
      const { mname, rname, serial, refresh, retry, expire, minimum } = record.data;
      return `${formatName(mname)} ${formatName(rname)} ${serial} ${refresh} ${retry} ${expire} ${minimum}`;
    }
  }
}

const TAB = 8;
/** The columns the TTL, class, type and rdata start at. upstream: BIND masterdump.c dns_master_style_default */
const TTL_COLUMN = 24;
const CLASS_COLUMN = 32;
const TYPE_COLUMN = 40;
const RDATA_COLUMN = 48;

/**
 * Writes the fields, each from its column, as BIND's master-file dumper does (masterdump.c
 * indent): the target is the field's column, or one past the text so far if that already
 * reaches it; tabs cover whole tab stops towards it and spaces the rest.
 */
function columns(first: string, fields: readonly (readonly [column: number, text: string])[]): string {
  let line = first;
  let current = first.length;
  for (const [column, text] of fields) {
    const to = Math.max(column, current + 1);
    const tabs = Math.max(0, Math.floor(to / TAB) - Math.floor(current / TAB));
    let from = current;
    if (tabs > 0) {
      line += '\t'.repeat(tabs);
      from = Math.floor(to / TAB) * TAB;
    }
    line += ' '.repeat(to - from);
    line += text;
    current = to + text.length;
  }
  return line;
}

/** One record as dig prints it in a section: `owner. TTL IN TYPE rdata`, in BIND's columns. */
export function formatRecord(record: DnsRecord): string {
  return columns(formatName(record.name), [
    [TTL_COLUMN, String(record.ttl)],
    [CLASS_COLUMN, record.class],
    [TYPE_COLUMN, record.type],
    [RDATA_COLUMN, formatRdata(record)],
  ]);
}

/**
 * The question as dig prints it in its QUESTION SECTION (`;name.  IN  TYPE`): no TTL, and
 * the leading `;` is not counted in the columns. upstream: BIND masterdump.c question_totext
 */
export function formatQuestion(question: Question): string {
  const owner = formatName(question.name);
  return `;${columns(owner, [
    [CLASS_COLUMN, 'IN'],
    [TYPE_COLUMN, question.type.toUpperCase()],
  ])}`;
}

/**
 * An answer as dig prints the body of a response: the status line, the flags and counts,
 * then the QUESTION, ANSWER, AUTHORITY and ADDITIONAL sections (empty ones left out), each
 * after a blank line. It lacks what belongs to one exchange rather than to the answer: the
 * message id, the RD and RA flags, the OPT pseudo-section and dig's timing footer.
 * upstream: BIND bin/dig/dig.c printmessage
 */
export function formatMessage(question: Question, resolution: Resolution): string {
  const flags = ['qr', ...(resolution.authoritative ? ['aa'] : [])].join(' ');
  const counts = `QUERY: 1, ANSWER: ${resolution.answer.length}, AUTHORITY: ${resolution.authority.length}, ADDITIONAL: ${resolution.additional.length}`;
  const lines = [`;; ->>HEADER<<- opcode: QUERY, status: ${resolution.rcode}`, `;; flags: ${flags}; ${counts}`, '', ';; QUESTION SECTION:', formatQuestion(question)];
  const sections: readonly (readonly [string, readonly DnsRecord[]])[] = [
    ['ANSWER', resolution.answer],
    ['AUTHORITY', resolution.authority],
    ['ADDITIONAL', resolution.additional],
  ];
  for (const [title, records] of sections) {
    if (records.length === 0) continue;
    lines.push('', `;; ${title} SECTION:`, ...records.map(formatRecord));
  }
  return `${lines.join('\n')}\n`;
}
