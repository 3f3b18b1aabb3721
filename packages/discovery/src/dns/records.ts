// DNS answers as plain data, in dns-packet's shapes (names without the final dot), so that a
// resolution can be encoded as it is and compared with what a decoder reads back.

export type Rcode = 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'NOTIMP' | 'REFUSED';

/** The numeric value of each rcode (RFC 1035 §4.1.1). */
export const RCODE_VALUES: Readonly<Record<Rcode, number>> = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
};

interface RecordBase {
  readonly name: string;
  readonly ttl: number;
  readonly class: 'IN';
}

export interface AddressRecord extends RecordBase {
  readonly type: 'A' | 'AAAA';
  readonly data: string;
}

export interface NameRecord extends RecordBase {
  readonly type: 'CNAME' | 'PTR' | 'NS';
  readonly data: string;
}

export interface SrvRecord extends RecordBase {
  readonly type: 'SRV';
  readonly data: { readonly priority: number; readonly weight: number; readonly port: number; readonly target: string };
}

export interface TxtRecord extends RecordBase {
  readonly type: 'TXT';
  readonly data: readonly string[];
}

export interface SoaRecord extends RecordBase {
  readonly type: 'SOA';
  readonly data: {
    readonly mname: string;
    readonly rname: string;
    readonly serial: number;
    readonly refresh: number;
    readonly retry: number;
    readonly expire: number;
    readonly minimum: number;
  };
}

export type DnsRecord = AddressRecord | NameRecord | SrvRecord | TxtRecord | SoaRecord;

export interface Question {
  /** The name as asked, with or without the final dot; letter case is kept in the answer. */
  readonly name: string;
  /** A record type as dns-packet names it: 'A', 'SRV', ... or 'UNKNOWN_<n>'. */
  readonly type: string;
}

export interface Resolution {
  readonly rcode: Rcode;
  /** AA: false only for an answer that came from the forward hook. */
  readonly authoritative: boolean;
  readonly answer: readonly DnsRecord[];
  readonly authority: readonly DnsRecord[];
  readonly additional: readonly DnsRecord[];
}
