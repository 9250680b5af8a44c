// The CORSConfiguration document of Put/GetBucketCors.

import {
  type CorsConfiguration,
  type CorsRule,
  parseCorsMethod,
  validateCorsConfiguration,
} from '../../../core/cors.js';
import { configRoot, containerChildren, optionalInt } from './config-xml.js';
import { el, openRoot, optEl } from './escape.js';
import { type XmlElement, childrenNamed, malformedXml, optionalLeaf } from './reader.js';

/** The text of every leaf child named `name`, as sent. */
function leaves(node: XmlElement, name: string): string[] {
  return childrenNamed(node, name).map((child) => {
    if (child.children.length > 0) throw malformedXml();
    return child.text;
  });
}

/**
 * Parses a PutBucketCors body and validates it (validateCorsConfiguration). Throws AppError
 * MissingRequestBodyError, MalformedXML (schema, no rules, a rule without origin or method),
 * InvalidRequest (unknown method, two wildcards) or InvalidArgument (ID, MaxAgeSeconds).
 */
export function parseCorsConfiguration(body: Uint8Array | string): CorsConfiguration {
  const root = configRoot(body, 'CORSConfiguration');
  const rules = containerChildren(root, 'CORSRule').map((node): CorsRule => {
    const rule: CorsRule = {
      allowedOrigins: leaves(node, 'AllowedOrigin'),
      allowedMethods: leaves(node, 'AllowedMethod').map(parseCorsMethod),
      allowedHeaders: leaves(node, 'AllowedHeader'),
      exposeHeaders: leaves(node, 'ExposeHeader'),
    };
    const id = optionalLeaf(node, 'ID');
    if (id !== undefined && id !== '') rule.id = id;
    const maxAge = optionalInt(node, 'MaxAgeSeconds');
    if (maxAge !== undefined) rule.maxAgeSeconds = maxAge;
    return rule;
  });
  const config: CorsConfiguration = { rules };
  validateCorsConfiguration(config);
  return config;
}

/** GetBucketCors's body, rules and values in stored order. */
export function buildCorsConfiguration(config: CorsConfiguration): string {
  let out = openRoot('CORSConfiguration');
  for (const rule of config.rules) {
    out += `<CORSRule>${optEl('ID', rule.id)}`;
    for (const h of rule.allowedHeaders) out += el('AllowedHeader', h);
    for (const m of rule.allowedMethods) out += el('AllowedMethod', m);
    for (const o of rule.allowedOrigins) out += el('AllowedOrigin', o);
    for (const h of rule.exposeHeaders) out += el('ExposeHeader', h);
    out += `${optEl('MaxAgeSeconds', rule.maxAgeSeconds)}</CORSRule>`;
  }
  return `${out}</CORSConfiguration>`;
}
