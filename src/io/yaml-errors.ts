/** Locations inside YAML documents and the one-line wording of zod issues, shared by every YAML file dlsim reads. */
import type { z } from 'zod';

/** A location inside a YAML document: keys are strings, list indices numbers. */
export type YamlPath = readonly (string | number)[];

/** Formats a YAML path for messages: `cluster.nodes[1].gpus`; the root is "". */
export function formatYamlPath(path: YamlPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/**
 * Error parameter giving `text` for a bad value and "required" for a missing one; unknown keys
 * fall through to the parse-level map, which names them.
 */
export function says(text: string): { error: (issue: { code?: string; input?: unknown }) => string | undefined } {
  return {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return undefined;
      return issue.input === undefined ? 'required' : text;
    },
  };
}

/** The first problem found in a YAML document; `unknownKey` is set for an unknown key inside `path`. */
export interface YamlIssue {
  readonly path: YamlPath;
  readonly message: string;
  readonly unknownKey?: string;
}

const EXPECTED_NAMES: Readonly<Record<string, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/** Short messages for the issues a schema does not word itself (shared by every YAML file dlsim reads). */
export const yamlErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.length === 1
        ? `unknown key "${issue.keys[0]}"`
        : `unknown keys ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      return `expected ${EXPECTED_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map(String).join(', ')}`;
    default:
      return undefined;
  }
};

/** The first issue of a failed parse: its path, message, and the unknown key when that is the problem. */
export function firstIssue(error: z.ZodError): YamlIssue {
  const first = error.issues[0]!;
  const path = first.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
  if (first.code === 'unrecognized_keys') return { path, message: first.message, unknownKey: first.keys[0]! };
  return { path, message: first.message };
}
