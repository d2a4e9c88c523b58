/**
 * The bounds of every tool input, in one place: each string has a maximum length (published in
 * the tool's JSON Schema as `maxLength`), each number a range, and no input is an open object,
 * so nesting is bounded by the schemas themselves. The transport bounds a whole message
 * (MAX_MESSAGE_BYTES) and the number of values in a call's arguments (MAX_ARGUMENT_VALUES).
 */
import { z } from 'zod';
import { AAP_SKILLS } from '../protocol/codes.js';

/** Bytes one message on stdin may take before the server gives up on the stream (the SDK's own default, made explicit). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Values (object members and array items, at any depth) one call's arguments may hold. */
export const MAX_ARGUMENT_VALUES = 256;
/** Characters of scenario text: the default --max-scenario-bytes, which the loader then holds in bytes. */
export const MAX_SCENARIO_CHARS = 1_048_576;
/** Characters of an error envelope or HTTP reply to explain (the reader parses 4 MiB at most). */
export const MAX_REPLY_CHARS = 1_048_576;
/** Lines one journal call returns at most. */
export const MAX_JOURNAL_LINES = 200;
export const DEFAULT_JOURNAL_LINES = 50;

/** The names the admin API accepts for a built-in scenario. */
export const builtinName = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);

export const scenarioText = z.string().min(1).max(MAX_SCENARIO_CHARS);

export const ttl = z.string().max(32).describe('the change reverts by itself after this long, e.g. "15m", "90s" (the instance may cap it with --max-ttl)');

export const ruleId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_.-]+$/);

export const sessionId = z.string().min(1).max(128).describe('the session a buyer named in x-aap-chaos-session (`default`: requests that named none)');

/** A journal line's `client`: an address, or `key:` and a keyed hash; stored values are shorter. */
export const clientKey = z.string().min(1).max(300).describe('a client key as journal lines and the report show it');

export const skill = z.enum(AAP_SKILLS);

export const ulid = z
  .string()
  .length(26)
  .regex(/^[0-9A-HJKMNP-TV-Z]{26}$/i);

/** An http(s) URL for check_dealer. */
export const dealerUrl = z.string().min(1).max(2048);
