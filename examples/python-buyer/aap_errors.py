#!/usr/bin/env python3
"""Reads AAP errors the way `aap-chaos/buyer`'s readAapError does, in Python's standard library.

read_aap_error(x) takes what a failed call left behind -- a JSON-RPC envelope (dict, str or bytes),
its `error` member, an HTTP reply as {"status", "headers", "body"}, urllib's HTTPError, or a
transport exception -- and returns one dict with the same keys as the TypeScript reader:

    kind ("aap" | "a2a" | "transport"), jsonRpcCode, code, retryable, retryAfterMs, errors
    ([{instanceLocation, keyword, error}]), extensionUri, requiredHeader, errorId, message,
    httpStatus, notFound ([{field, why}]: what it could not find or use)

Both profiles: under AAP 1.3 error.data is the bare aap.error object; under the 2.0 draft an array
in which the payload, ErrorInfo and BadRequest are found by @type (never by position) and unknown
entries are ignored. The dealer's per-instance retryable wins over the table default; ErrorInfo
metadata is read only as the strings the contract defines. It never raises.

The tables below mirror src/protocol/codes.ts; a test in the repository fails if they drift.

    python3 aap_errors.py < replies.jsonl     # one JSON reply per line in, one reading per line out
"""
import errno
import json
import math
import re
import sys
from email.utils import parsedate_to_datetime
from time import time

AAP_ERROR_TYPE = "https://autoagentprotocol.org/extensions/aap/error"
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"
AAP_ERROR_DOMAIN = "autoagentprotocol.org"
EXTENSIONS_HEADER = "A2A-Extensions"
# The AAP extension URIs a buyer of this example implements: the v1.3 release and the 2.0 draft placeholder.
AAP_EXTENSION_URIS = ("https://autoagentprotocol.org/extensions/aap/v1.3", "https://draft.autoagentprotocol.invalid/extensions/aap/latest")

# AAP code -> retryable default (the JSON-RPC codes differ by profile; the reader does not need them).
AAP_RETRYABLE_DEFAULTS = {
    "UNSUPPORTED_SKILL": False,
    "SCHEMA_VALIDATION_FAILED": False,
    "MISSING_REQUIRED_FIELD": False,
    "INVALID_CONDITION": False,
    "VEHICLE_NOT_FOUND": False,
    "VEHICLE_UNAVAILABLE": False,
    "CONTACT_CONSENT_REQUIRED": False,
    "INVALID_CONSENT": False,
    "APPOINTMENT_TIME_UNAVAILABLE": False,
    "IDEMPOTENCY_CONFLICT": False,
    "RATE_LIMITED": True,
    "INTERNAL_ERROR": True,
}
VALIDATION_CODES = {"SCHEMA_VALIDATION_FAILED", "MISSING_REQUIRED_FIELD", "INVALID_CONDITION"}
A2A_ERROR_CODES = {
    "TASK_NOT_FOUND": -32001,
    "TASK_NOT_CANCELABLE": -32002,
    "PUSH_NOTIFICATION_NOT_SUPPORTED": -32003,
    "UNSUPPORTED_OPERATION": -32004,
    "CONTENT_TYPE_NOT_SUPPORTED": -32005,
    "INVALID_AGENT_RESPONSE": -32006,
    "EXTENDED_AGENT_CARD_NOT_CONFIGURED": -32007,
    "EXTENSION_SUPPORT_REQUIRED": -32008,
    "VERSION_NOT_SUPPORTED": -32009,
    "PARSE_ERROR": -32700,
    "INVALID_REQUEST": -32600,
    "METHOD_NOT_FOUND": -32601,
    "INVALID_PARAMS": -32602,
    "INTERNAL_ERROR": -32603,
}
A2A_NAME_BY_CODE = {code: name for name, code in A2A_ERROR_CODES.items()}
EXTENSION_REQUIRED = A2A_ERROR_CODES["EXTENSION_SUPPORT_REQUIRED"]

MAX_MESSAGE_CHARS = 4000
MAX_ENTRIES = 64
MAX_FIELD_ERRORS = 1000
MAX_JSON_CHARS = 4 * 1024 * 1024
_MISSING = object()


def tables():
    """The protocol tables this module carries, for the drift test."""
    return {
        "types": [AAP_ERROR_TYPE, ERROR_INFO_TYPE, BAD_REQUEST_TYPE, RETRY_INFO_TYPE],
        "aap_domain": AAP_ERROR_DOMAIN,
        "extensions_header": EXTENSIONS_HEADER,
        "extension_uris": list(AAP_EXTENSION_URIS),
        "aap_retryable": AAP_RETRYABLE_DEFAULTS,
        "validation_codes": sorted(VALIDATION_CODES),
        "a2a_codes": A2A_ERROR_CODES,
    }


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _type_name(v):
    if v is None:
        return "null"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "a " + type(v).__name__


def _bounded(text, not_found):
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    not_found.append({"field": "message", "why": "cut to %d of %d characters" % (MAX_MESSAGE_CHARS, len(text))})
    return text[:MAX_MESSAGE_CHARS] + "\u2026"


def _hint_ms(v, scale=1):
    return math.ceil(v * scale) if _is_number(v) and v >= 0 else None


def _retry_after_header_ms(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if re.fullmatch(r"\d{1,10}", text):
        return int(text) * 1000
    if len(text) > 64:
        return None
    try:
        return max(0, math.ceil(parsedate_to_datetime(text).timestamp() * 1000 - time() * 1000))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _sort_entries(data, not_found):
    found = {"payload": None, "aap_info": None, "other_infos": [], "bad_request": None, "retry_info": None}
    if isinstance(data, list):
        if len(data) > MAX_ENTRIES:
            not_found.append({"field": "data", "why": "only the first %d of %d entries were read" % (MAX_ENTRIES, len(data))})
        entries = data[:MAX_ENTRIES]
    elif isinstance(data, dict):
        entries = [data]
    else:
        if data is not _MISSING:
            not_found.append({"field": "data", "why": "error.data is %s, not an array or object" % _type_name(data)})
        return found
    untyped = None
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("@type", _MISSING)
        if kind == AAP_ERROR_TYPE:
            found["payload"] = entry if found["payload"] is None else found["payload"]
        elif kind == ERROR_INFO_TYPE:
            if entry.get("domain") == AAP_ERROR_DOMAIN:
                found["aap_info"] = entry if found["aap_info"] is None else found["aap_info"]
            else:
                found["other_infos"].append(entry)
        elif kind == BAD_REQUEST_TYPE:
            found["bad_request"] = entry if found["bad_request"] is None else found["bad_request"]
        elif kind == RETRY_INFO_TYPE:
            found["retry_info"] = entry if found["retry_info"] is None else found["retry_info"]
        elif kind is _MISSING and entry.get("type") == "aap.error" and untyped is None:
            untyped = entry
    if found["payload"] is None and untyped is not None:
        found["payload"] = untyped
        if isinstance(data, list):
            not_found.append({"field": "@type", "why": "the aap.error entry carries no @type; it was read by its type field"})
    return found


def _metadata_string(info, key, not_found):
    metadata = info.get("metadata") if isinstance(info, dict) else None
    if not isinstance(metadata, dict) or key not in metadata:
        return None
    value = metadata[key]
    if isinstance(value, str):
        return value
    not_found.append({"field": "metadata." + key, "why": "is %s; ErrorInfo metadata values are strings, so it was not read" % _type_name(value)})
    return None


def _metadata_retryable(info, not_found):
    text = _metadata_string(info, "retryable", not_found)
    if text == "true":
        return True
    if text == "false":
        return False
    if text is not None:
        not_found.append({"field": "metadata.retryable", "why": 'is "%s", neither "true" nor "false"' % text[:20]})
    return None


def _field_errors(value, not_found):
    if not isinstance(value, list):
        return None
    errors, skipped = [], 0
    for e in value[:MAX_FIELD_ERRORS]:
        if isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("instanceLocation", "keyword", "error")):
            errors.append({"instanceLocation": e["instanceLocation"], "keyword": e["keyword"], "error": e["error"]})
        else:
            skipped += 1
    if skipped:
        not_found.append({"field": "errors", "why": "%d details.errors[] entries lack a string instanceLocation, keyword or error" % skipped})
    if len(value) > MAX_FIELD_ERRORS:
        not_found.append({"field": "errors", "why": "only the first %d of %d were read" % (MAX_FIELD_ERRORS, len(value))})
    return errors


def _violations(bad_request):
    violations = bad_request.get("fieldViolations") if isinstance(bad_request, dict) else None
    if not isinstance(violations, list):
        return None
    errors = []
    for v in violations[:MAX_FIELD_ERRORS]:
        if not isinstance(v, dict) or not isinstance(v.get("field"), str) or not isinstance(v.get("description"), str):
            continue
        m = re.match(r"^([A-Za-z$][\w$-]*): (.*)$", v["description"], re.S | re.A)
        errors.append({"instanceLocation": v["field"], "keyword": m.group(1) if m else "", "error": m.group(2) if m else v["description"]})
    return errors


def _duration_ms(value):
    m = re.fullmatch(r"(\d{1,10}(?:\.\d{1,9})?)s", value) if isinstance(value, str) else None
    return math.ceil(float(m.group(1)) * 1000) if m else None


def _uri_in_message(message):
    m = re.search(r"https?://[^\s'\"),]+", message[:8192])
    return re.sub(r"\.$", "", m.group(0)) if m else None


def read_rpc_error(error, status=None, retry_after_ms=None):
    """Reads one JSON-RPC error member ({code, message, data}) of either profile."""
    not_found = []
    raw_code = error.get("code")
    rpc_code = int(raw_code) if _is_number(raw_code) and float(raw_code).is_integer() else None
    if rpc_code is None:
        not_found.append({"field": "jsonRpcCode", "why": "error.code is %s, not an integer" % _type_name(raw_code)})
    rpc_message = error.get("message") if isinstance(error.get("message"), str) else ""
    e = _sort_entries(error.get("data", _MISSING), not_found)
    payload, aap_info, bad_request, retry_info = e["payload"], e["aap_info"], e["bad_request"], e["retry_info"]
    a2a_info = e["other_infos"][0] if e["other_infos"] else None
    reading = {"kind": "aap" if payload is not None or aap_info is not None else "a2a", "retryable": False, "message": "", "notFound": not_found}
    if rpc_code is not None:
        reading["jsonRpcCode"] = rpc_code
    if status is not None:
        reading["httpStatus"] = status

    code = None
    if payload is not None:
        if isinstance(payload.get("code"), str):
            code = payload["code"]
        else:
            not_found.append({"field": "code", "why": "the aap.error payload's code is %s" % _type_name(payload.get("code"))})
    if code is None and aap_info is not None:
        code = _metadata_string(aap_info, "code", not_found)
        if code is None and isinstance(aap_info.get("reason"), str):
            code = aap_info["reason"]
        if payload is None:
            not_found.append({"field": "payload", "why": "no aap.error entry in error.data: read from the AAP ErrorInfo"})
    if code is None and payload is None and aap_info is None:
        named = A2A_NAME_BY_CODE.get(rpc_code)
        if a2a_info is not None and isinstance(a2a_info.get("reason"), str):
            code = a2a_info["reason"]
        elif named in AAP_RETRYABLE_DEFAULTS:
            # A bare -32603 is JSON-RPC's internal error, not the AAP code of the same name: without a
            # typed payload the dealer named no AAP code, so none is made up (nor its retryable default).
            not_found.append({"field": "payload", "why": "no aap.error payload or ErrorInfo: a bare JSON-RPC %d names no AAP code" % rpc_code})
        elif named is not None:
            code = named
            not_found.append({"field": "code", "why": "no ErrorInfo reason: named after the JSON-RPC code %d" % rpc_code})
    if code is not None:
        reading["code"] = code
    else:
        not_found.append({"field": "code", "why": "neither an aap.error payload nor an ErrorInfo names one"})
    if code is not None and reading["kind"] == "aap" and code not in AAP_RETRYABLE_DEFAULTS:
        not_found.append({"field": "code", "why": '"%s" is not one of the 12 AAP codes' % code[:64]})

    retryable = payload.get("retryable") if payload is not None and isinstance(payload.get("retryable"), bool) else None
    if payload is not None and retryable is None:
        not_found.append({"field": "retryable", "why": "the payload's retryable is %s, not a boolean" % _type_name(payload.get("retryable"))})
    meta_retryable = _metadata_retryable(aap_info, not_found)
    if retryable is None:
        retryable = meta_retryable
    if retryable is None:
        known = code in AAP_RETRYABLE_DEFAULTS
        retryable = AAP_RETRYABLE_DEFAULTS[code] if known else False
        not_found.append({"field": "retryable", "why": "the dealer did not say: " + ("the table default for " + code if known else "taken as false")})
    reading["retryable"] = retryable

    message = payload.get("message") if payload is not None and isinstance(payload.get("message"), str) else rpc_message
    reading["message"] = _bounded(message, not_found)
    error_id = payload.get("error_id") if payload is not None and isinstance(payload.get("error_id"), str) else _metadata_string(aap_info, "error_id", not_found)
    if error_id is not None:
        reading["errorId"] = error_id
    elif reading["kind"] == "aap":
        not_found.append({"field": "errorId", "why": "no error_id in the payload or the ErrorInfo metadata"})

    details = payload.get("details") if payload is not None and isinstance(payload.get("details"), dict) else {}
    hint = _hint_ms(details.get("retry_after_ms"))
    if hint is None:
        hint = _hint_ms(details.get("retry_after_seconds"), 1000)
    if hint is None and retry_info is not None:
        hint = _duration_ms(retry_info.get("retryDelay"))
    if hint is None:
        hint = retry_after_ms
    if hint is not None:
        reading["retryAfterMs"] = hint
    elif retryable:
        given = details.get("retry_after_ms", details.get("retry_after_seconds", _MISSING))
        why = "no retry hint: back off on your own" if given is _MISSING else "the hint is %s, not a non-negative number" % _type_name(given)
        not_found.append({"field": "retryAfterMs", "why": why})

    errors = _field_errors(details.get("errors"), not_found)
    if errors is None:
        errors = _violations(bad_request)
    if errors is not None:
        reading["errors"] = errors
    elif code in VALIDATION_CODES:
        not_found.append({"field": "errors", "why": "no details.errors[] and no BadRequest"})

    if rpc_code == EXTENSION_REQUIRED or code == "EXTENSION_SUPPORT_REQUIRED":
        info = next((i for i in e["other_infos"] if isinstance(i.get("metadata"), dict) and "extensionUri" in i["metadata"]), a2a_info)
        uri = _metadata_string(info, "extensionUri", not_found)
        if uri is None:
            uri = _uri_in_message(rpc_message)
        header = _metadata_string(info, "requiredHeader", not_found)
        if header is None and EXTENSIONS_HEADER in rpc_message:
            header = EXTENSIONS_HEADER
        if uri is not None:
            reading["extensionUri"] = uri
        else:
            not_found.append({"field": "extensionUri", "why": "neither ErrorInfo metadata nor the message names the extension"})
        if header is not None:
            reading["requiredHeader"] = header
        else:
            not_found.append({"field": "requiredHeader", "why": "neither ErrorInfo metadata nor the message names the header"})
    return reading


def _retryable_status(status):
    return status in (408, 425, 429) or (status >= 500 and status not in (501, 505)) or 200 <= status < 300


def _transport(message, retryable, not_found, **extra):
    reading = {"kind": "transport", "retryable": retryable, "message": _bounded(message, not_found), "notFound": not_found}
    reading.update({k: v for k, v in extra.items() if v is not None})
    return reading


def _header(headers, name):
    if isinstance(headers, dict):
        for key, value in headers.items():
            if isinstance(key, str) and key.lower() == name:
                return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
        return None
    get = getattr(headers, "get", None)
    value = get(name) if callable(get) else None
    return value if isinstance(value, str) else None


def _parse_json(text):
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_JSON_CHARS:
            return _MISSING
        text = text.decode("utf-8", "replace")
    if len(text) > MAX_JSON_CHARS or not re.match(r"\s*[{\[]", text[:64]):
        return _MISSING
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _MISSING


def _is_rpc_error_member(v):
    return isinstance(v, dict) and _is_number(v.get("code"))


def _read_http(status, headers, body):
    retry_after = _retry_after_header_ms(_header(headers, "retry-after"))
    parsed = _parse_json(body) if isinstance(body, (str, bytes, bytearray)) else body
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if _is_rpc_error_member(error):
        return read_rpc_error(error, status, retry_after)
    why = "the body was not given" if body is _MISSING or body is None else "the body is not a JSON-RPC error"
    return _transport("HTTP %d" % status, _retryable_status(status), [{"field": "jsonRpcCode", "why": why}], httpStatus=status, retryAfterMs=retry_after)


def _read_exception(x):
    status = getattr(x, "code", None)
    if _is_number(status) and 100 <= status <= 599 and hasattr(x, "headers"):  # urllib.error.HTTPError
        try:
            body = x.read(MAX_JSON_CHARS)
        except Exception:
            body = None
        return _read_http(int(status), x.headers, body)
    cause = getattr(x, "reason", None)  # urllib.error.URLError wraps the socket error
    number = getattr(cause if isinstance(cause, OSError) else x, "errno", None)
    code = errno.errorcode.get(number) if isinstance(number, int) else None
    # No usable answer: whether it took effect is unknown, so it may be sent again (a lead with the same key).
    return _transport(str(x) or type(x).__name__, True, [{"field": "jsonRpcCode", "why": "no JSON-RPC error reached the buyer"}], code=code)


def _read(x, depth=0):
    if isinstance(x, BaseException):
        return _read_exception(x)
    if isinstance(x, (str, bytes, bytearray)):
        parsed = _parse_json(x)
        if parsed is not _MISSING and depth < 4:
            return _read(parsed, depth + 1)
        text = x if isinstance(x, str) else x[:MAX_MESSAGE_CHARS + 1].decode("utf-8", "replace")
        return _transport(text, False, [{"field": "jsonRpcCode", "why": "a string that is not a JSON-RPC envelope"}])
    if not isinstance(x, dict):
        return _transport("not an error: " + _type_name(x), False, [{"field": "jsonRpcCode", "why": "readAapError was given " + _type_name(x)}])
    if _is_rpc_error_member(x.get("error")):
        return read_rpc_error(x["error"])
    if _is_rpc_error_member(x) and "message" in x:
        return read_rpc_error(x)
    status = x.get("status")
    if _is_number(status) and float(status).is_integer() and 100 <= status <= 599:
        return _read_http(int(status), x.get("headers"), x.get("body", _MISSING))
    if isinstance(x.get("message"), str) and x["message"]:
        return _transport(x["message"], True, [{"field": "jsonRpcCode", "why": "no JSON-RPC error reached the buyer"}])
    what = "a JSON-RPC success, not an error" if "result" in x else "an object that is no error, envelope or HTTP reply"
    return _transport("not an error: " + what, False, [{"field": "jsonRpcCode", "why": "readAapError was given " + what}])


def read_aap_error(x):
    """One reading of whatever a failed call left behind; never raises."""
    try:
        return _read(x)
    except Exception as e:  # a hostile object: say so rather than pass the exception on
        return {"kind": "transport", "retryable": False, "message": "unreadable error value", "notFound": [{"field": "jsonRpcCode", "why": "reading it raised: %s" % str(e)[:200]}]}


if __name__ == "__main__":
    if sys.argv[1:] == ["--tables"]:
        print(json.dumps(tables()))
        sys.exit(0)
    for line in sys.stdin:
        if line.strip():
            try:
                value = json.loads(line)
            except ValueError:
                value = line.rstrip("\n")
            print(json.dumps(read_aap_error(value), ensure_ascii=False), flush=True)
