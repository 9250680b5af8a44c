// What a user needs to connect an S3 client to this server with a new access key (docs/console.md "Connecting a
// client"): the S3 endpoint, the key as .json and .csv files, and ready configuration for the AWS CLI, boto3, the JS
// SDK v3, rclone and s3cmd. Pure functions, so the tests pin every character a user will paste.

export interface ClientKey {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface EndpointInput {
  /** STORE_ENDPOINT as configured (a host name, host:port, or a URL); null or '' when unset. */
  configured: string | null;
  /** The origin the console was loaded from: 'https://store.example.com'. */
  origin: string;
  /** MOUNT_PATH: '' or '/storage'. */
  mount: string;
}

/**
 * The S3 endpoint URL clients use. STORE_ENDPOINT when set: a URL is taken as it is, a bare host gets the console's
 * scheme and MOUNT_PATH; otherwise the console's own origin under MOUNT_PATH (the S3 plane shares the listener).
 */
export function s3Endpoint({ configured, origin, mount }: EndpointInput): string {
  const value = (configured ?? '').trim().replace(/\/+$/, '');
  if (value === '') return `${origin}${mount}`;
  if (/^https?:\/\//i.test(value)) return value;
  const scheme = /^https:/i.test(origin) ? 'https' : 'http';
  return `${scheme}://${value}${mount}`;
}

export interface Connection {
  endpoint: string;
  region: string;
}

/**
 * What the snippets' first command lists: the bucket (and prefix) of a key's scope, since a scoped key may not list
 * the buckets; undefined lists the buckets.
 */
export interface ListTarget {
  bucket: string;
  prefix?: string | undefined;
}

export interface Snippet {
  id: 'aws-cli' | 'boto3' | 'js-sdk' | 'rclone' | 's3cmd';
  label: string;
  /** Where it goes: shown above the snippet. */
  hint: string;
  text: string;
}

/** The key pair as a JSON file (the names the AWS SDKs use for the fields). */
export function credentialsJson(key: ClientKey, conn: Connection): string {
  const doc = {
    accessKeyId: key.accessKeyId,
    secretAccessKey: key.secretAccessKey,
    endpoint: conn.endpoint,
    region: conn.region,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The key pair as CSV in the AWS console's shape: "Access key ID,Secret access key" and one row. */
export function credentialsCsv(key: ClientKey): string {
  return `Access key ID,Secret access key\r\n${csvField(key.accessKeyId)},${csvField(key.secretAccessKey)}\r\n`;
}

/** A name for the profile or remote: "store", or the key's name made safe for INI sections and CLI flags. */
export function profileName(keyName: string | undefined): string {
  const safe = (keyName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return safe === '' ? 'store' : safe;
}

/** A single-quoted shell word. */
const sh = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
/** A Python or JavaScript string literal (JSON's escaping is valid in both). */
const lit = (value: string): string => JSON.stringify(value);

function awsCli(
  key: ClientKey,
  conn: Connection,
  { profile, target }: { profile: string; target?: ListTarget },
): string {
  const what = target ? ` ${sh(`s3://${target.bucket}/${target.prefix ?? ''}`)}` : '';
  return [
    `aws configure set aws_access_key_id ${sh(key.accessKeyId)} --profile ${profile}`,
    `aws configure set aws_secret_access_key ${sh(key.secretAccessKey)} --profile ${profile}`,
    `aws configure set region ${sh(conn.region)} --profile ${profile}`,
    `aws configure set s3.addressing_style path --profile ${profile}`,
    '',
    `aws s3 ls${what} --profile ${profile} --endpoint-url ${sh(conn.endpoint)}`,
  ].join('\n');
}

function boto3(key: ClientKey, conn: Connection, target?: ListTarget): string {
  const list = target
    ? `print([o["Key"] for o in s3.list_objects_v2(Bucket=${lit(target.bucket)}, Prefix=${lit(target.prefix ?? '')})` +
      '.get("Contents", [])])'
    : 'print([b["Name"] for b in s3.list_buckets()["Buckets"]])';
  return [
    'import boto3',
    'from botocore.config import Config',
    '',
    's3 = boto3.client(',
    '    "s3",',
    `    endpoint_url=${lit(conn.endpoint)},`,
    `    aws_access_key_id=${lit(key.accessKeyId)},`,
    `    aws_secret_access_key=${lit(key.secretAccessKey)},`,
    `    region_name=${lit(conn.region)},`,
    '    config=Config(s3={"addressing_style": "path"}),',
    ')',
    list,
  ].join('\n');
}

function jsSdk(key: ClientKey, conn: Connection, target?: ListTarget): string {
  const list = target
    ? [
        'const { Contents = [] } = await s3.send(',
        `  new ListObjectsV2Command({ Bucket: ${lit(target.bucket)}, Prefix: ${lit(target.prefix ?? '')} }),`,
        ');',
        'console.log(Contents.map((o) => o.Key));',
      ]
    : [
        'const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));',
        'console.log(Buckets.map((b) => b.Name));',
      ];
  return [
    `import { ${target ? 'ListObjectsV2Command' : 'ListBucketsCommand'}, S3Client } from '@aws-sdk/client-s3';`,
    '',
    'const s3 = new S3Client({',
    `  endpoint: ${lit(conn.endpoint)},`,
    `  region: ${lit(conn.region)},`,
    '  forcePathStyle: true,',
    '  credentials: {',
    `    accessKeyId: ${lit(key.accessKeyId)},`,
    `    secretAccessKey: ${lit(key.secretAccessKey)},`,
    '  },',
    '});',
    ...list,
  ].join('\n');
}

function rclone(key: ClientKey, conn: Connection, profile: string): string {
  return [
    `[${profile}]`,
    'type = s3',
    'provider = Other',
    `access_key_id = ${key.accessKeyId}`,
    `secret_access_key = ${key.secretAccessKey}`,
    `endpoint = ${conn.endpoint}`,
    `region = ${conn.region}`,
    'force_path_style = true',
  ].join('\n');
}

function s3cmd(key: ClientKey, conn: Connection): string {
  const url = new URL(conn.endpoint);
  const lines = [
    '[default]',
    `access_key = ${key.accessKeyId}`,
    `secret_key = ${key.secretAccessKey}`,
    `host_base = ${url.host}`,
    // Path-style: no %(bucket)s in host_bucket, so bucket names stay in the path.
    `host_bucket = ${url.host}`,
    `bucket_location = ${conn.region}`,
    `use_https = ${url.protocol === 'https:' ? 'True' : 'False'}`,
    'signature_v2 = False',
  ];
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '') {
    lines.unshift(
      `# s3cmd cannot send requests under a path prefix (${path}): serve Store at the root of a host for s3cmd.`,
    );
  }
  return lines.join('\n');
}

/** Every client's snippet for this key, in the order the console shows them. */
export function clientSnippets(
  key: ClientKey & { name?: string | undefined },
  conn: Connection,
  target?: ListTarget,
): Snippet[] {
  const profile = profileName(key.name);
  const remotePath = target ? `${target.bucket}/${target.prefix ?? ''}` : '';
  return [
    {
      id: 'aws-cli',
      label: 'AWS CLI',
      hint: `Run these once; then every command takes --profile ${profile} and --endpoint-url.`,
      text: awsCli(key, conn, { profile, target }),
    },
    { id: 'boto3', label: 'boto3', hint: 'Python, with boto3 installed.', text: boto3(key, conn, target) },
    {
      id: 'js-sdk',
      label: 'JS SDK v3',
      hint: 'Node.js (an ES module), with @aws-sdk/client-s3 installed.',
      text: jsSdk(key, conn, target),
    },
    {
      id: 'rclone',
      label: 'rclone',
      hint: `Add to rclone.conf (rclone config file shows where); then rclone ls ${profile}:${remotePath}`,
      text: rclone(key, conn, profile),
    },
    {
      id: 's3cmd',
      label: 's3cmd',
      hint: `Save as ~/.s3cfg; then s3cmd ls${target ? ` s3://${remotePath}` : ''}`,
      text: s3cmd(key, conn),
    },
  ];
}
