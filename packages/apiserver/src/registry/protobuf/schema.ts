// How a message of Kubernetes' generated.proto files is described here: per field its number,
// its Go JSON name, its Go field name (the generated code's "wrong wireType ... for field X"
// names it), its type, and the two facts of the Go struct that decide the JSON: whether the Go
// field is a pointer (present only when the body sets it) and whether its json tag has
// omitempty. Fields are listed in the Go struct's order, which is the order of the JSON keys.
// An embedded struct tagged `json:",inline"` prints its fields in the enclosing object.

/** Types whose Go Unmarshal is hand-written upstream, with behaviour of their own. */
export type CustomMessage =
  /** metav1.Time: an empty message is the zero time, otherwise whole seconds of a Timestamp. */
  | 'Time'
  /** metav1.MicroTime: like Time, keeping microseconds. */
  | 'MicroTime'
  /** intstr.IntOrString: a number or a string in JSON, by its type field. */
  | 'IntOrString'
  /** resource.Quantity: its string in JSON. */
  | 'Quantity'
  /** metav1.FieldsV1: its raw bytes are the JSON. */
  | 'FieldsV1';

export type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';

export interface MessageSpec {
  /** The Go type name, as the generated errors print it (`proto: ServicePort: illegal tag ...`). */
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  readonly byNumber: ReadonlyMap<number, FieldSpec>;
  readonly custom?: CustomMessage;
}

export interface FieldSpec {
  readonly number: number;
  readonly json: string;
  readonly go: string;
  /** A scalar, or the message (a thunk, so that tables can be declared in any order). */
  readonly type: Scalar | (() => MessageSpec);
  readonly shape: 'single' | 'list' | 'map';
  /** A Go pointer: rendered whenever the body had it, zero or not. */
  readonly pointer: boolean;
  readonly omitempty: boolean;
  /** An embedded struct with `json:",inline"`: its fields print in the enclosing object. */
  readonly inline: boolean;
}

export interface FieldOptions {
  /** The Go field name when it is not the JSON name capitalised (`UID`, `IPFamilies`, `ObjectMeta`). */
  readonly go?: string;
  readonly pointer?: true;
  /** The json tag has no omitempty. */
  readonly keep?: true;
  /** An embedded struct whose json tag is `,inline` (Probe's ProbeHandler, Volume's VolumeSource). */
  readonly inline?: true;
}

function capitalised(json: string): string {
  return json.charAt(0).toUpperCase() + json.slice(1);
}

function field(number: number, json: string, type: FieldSpec['type'], shape: FieldSpec['shape'], options: FieldOptions): FieldSpec {
  return { number, json, go: options.go ?? capitalised(json), type, shape, pointer: options.pointer === true, omitempty: options.keep !== true, inline: options.inline === true };
}

/** A singular field. */
export function one(number: number, json: string, type: FieldSpec['type'], options: FieldOptions = {}): FieldSpec {
  return field(number, json, type, 'single', options);
}

/** A repeated field (a Go slice). */
export function list(number: number, json: string, type: FieldSpec['type'], options: FieldOptions = {}): FieldSpec {
  return field(number, json, type, 'list', options);
}

/** A map<string, V> field. */
export function map(number: number, json: string, type: FieldSpec['type'], options: FieldOptions = {}): FieldSpec {
  return field(number, json, type, 'map', options);
}

export function message(name: string, fields: readonly FieldSpec[], custom?: CustomMessage): MessageSpec {
  const byNumber = new Map<number, FieldSpec>();
  for (const f of fields) {
    if (byNumber.has(f.number)) throw new Error(`${name}: field number ${f.number} listed twice`);
    byNumber.set(f.number, f);
  }
  return custom === undefined ? { name, fields, byNumber } : { name, fields, byNumber, custom };
}
