/**
 * The API's field messages ("age must not be less than 0") are written for developers and
 * name the property. Under a labelled input the property name is noise: these rules say the
 * same thing in plain words. A message no rule knows is shown without its property name.
 */
const RULES: [RegExp, (...groups: string[]) => string][] = [
  [/^is required\b/, () => 'This is required.'],
  [/^must be an integer number$/, () => 'Enter a whole number.'],
  [/^must be a string$/, () => 'Enter text.'],
  [/^must be an array$/, () => 'Enter a list.'],
  [/^must not be less than (\S+)$/, (min) => `Enter ${min} or more.`],
  [/^must not be greater than (\S+)$/, (max) => `Enter ${max} or less.`],
  [/^must be longer than or equal to 1 characters$/, () => 'This cannot be empty.'],
  [/^must be longer than or equal to (\d+) characters$/, (n) => `Use at least ${n} characters.`],
  [/^must be shorter than or equal to (\d+) characters$/, (n) => `Use at most ${n} characters.`],
  [/^must contain no more than (\d+) elements$/, (n) => `Give at most ${n}.`],
  [/^must be one of the following values: (.+)$/, (values) => `Choose one of: ${values}.`],
  [/^must be an email$/, () => 'Enter an email address, like name@example.com.'],
  [/^must contain at least 1 elements$/, () => 'Choose at least one.'],
  [/^must contain at least (\d+) elements$/, (n) => `Choose at least ${n}.`],
  [
    /^must be an absolute http or https URL without user:password$/,
    () =>
      'Enter a full address starting with http:// or https://, without a user name or password.',
  ],
  // A webhook URL refused by the service's address policy (src/webhooks/outbound/).
  [
    /^(\S+) resolves to ((?:an?|the) .*address.*)$/,
    (host, kind) => `Webhooks cannot be sent to ${host}: it resolves to ${kind}.`,
  ],
  [/^the host is ((?:an?|the) .*address.*)$/, (kind) => `Webhooks cannot be sent to ${kind}.`],
  [
    /^(\S+) could not be resolved \(DNS failure.*\)$/,
    (host) => `No address was found for ${host}. Check the host name.`,
  ],
];

function sentence(text: string): string {
  const capitalised = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** `field` is the top-level field (`tags`); `message` the API's, possibly about each entry. */
export function plainFieldMessage(field: string, message: string): string {
  const each = message.startsWith(`each value in ${field} `);
  const rest = message.slice(each ? `each value in ${field} `.length : 0);
  const unprefixed = rest.startsWith(`${field} `) ? rest.slice(field.length + 1) : rest;
  const rule = RULES.find(([pattern]) => pattern.test(unprefixed));
  const plain = rule ? rule[1](...unprefixed.match(rule[0])!.slice(1)) : sentence(unprefixed);
  return each ? `Each entry: ${plain.charAt(0).toLowerCase()}${plain.slice(1)}` : plain;
}
