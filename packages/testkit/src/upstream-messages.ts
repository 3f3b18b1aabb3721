// Upstream's long validation messages, written out once for every test that expects them.
// They are test oracles: copied from upstream's text, never computed by the code under
// test, so a test that imports them still fails when the implementation drifts.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go and ip.go
// (v0.32), pkg/apis/core/validation/validation.go (ValidateNonSpecialIP)

export const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
export const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with " +
  "an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
/** The qualified-name rule; upstream prefixes it with "name part " or "a qualified name ". */
export const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const PORT_RANGE_MSG = 'must be between 1 and 65535, inclusive';
export const VALID_IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
export const VALID_CIDR_MSG = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
export const LOOPBACK_MSG = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
export const LINK_LOCAL_MSG = 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
export const LINK_LOCAL_MULTICAST_MSG = 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
