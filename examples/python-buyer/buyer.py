#!/usr/bin/env python3
"""A resilient AAP buyer in plain Python: the standard library only (urllib + json), no SDK.

It makes the same shopping trip as the JavaScript reference buyers and follows the AAP error
contract the same way, which is what `aap-chaos exam` grades. Every failure is read by
`aap_errors.read_aap_error` (next to this file: both profiles, the payload found by `@type`):

- `retryable: false` means the same request fails again: give up on that call;
- a retry hint (RATE_LIMITED's `retry_after_ms`, a 503's Retry-After): wait it out, plus a little
  jitter, before calling that skill again;
- other retryable errors and replies that never arrived: exponential backoff with jitter;
- -32008: activate the extension the error names in `A2A-Extensions`, if this buyer implements it,
  and send again, once;
- a lead is retried with the same idempotency_key and payload;
- a vehicle the dealer called unavailable or not found is never asked for again.

With AAP_DEALER_URLS (several dealers' base URLs, comma-separated, as `aap-chaos exam
--mock-dealers N` sets it) it fans out instead: one thread per dealer makes the searches there, so
one dealer's retry wait or slowness never holds up the others; the first dealer that finds a vehicle
gets the one lead (retried there, with its key, if the reply is lost); and the buyer answers within
AAP_BUYER_BUDGET_MS (default 4000) with whatever dealers have replied by then.

    AAP_DEALER_URL=http://127.0.0.1:8080 python3 examples/python-buyer/buyer.py
    aap-chaos exam -- python3 examples/python-buyer/buyer.py
    aap-chaos exam --mock-dealers 3 -- python3 examples/python-buyer/buyer.py
"""
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

from aap_errors import AAP_EXTENSION_URIS, read_aap_error

GONE_CODES = {"VEHICLE_UNAVAILABLE", "VEHICLE_NOT_FOUND"}
MAX_RETRIES = 4
BASE_DELAY_S = 0.15
TIMEOUT_S = 15
# A VIN seen on an earlier visit; the embedded mock dealer has sold it since.
REMEMBERED_VIN = os.environ.get("BUYER_REMEMBERED_VIN", "3GCGXUJB9LW000201")

LEAD = {
    "customer": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "preferred_contact": "email"},
    "consent": {
        "granted_at": "2024-01-01T10:00:00Z",
        "allowed_channels": ["email"],
        "consent_text": "I agree to be contacted about this vehicle.",
        "scope": ["lead_submission"],
    },
    "source_agent": {"name": "python-buyer", "url": "https://buyer.example"},
}
SEARCHES = [{"make": ["Honda"]}, {"make": ["Toyota"]}, {"condition": ["used"]}, {}, {"make": ["Ford"]}, {"condition": ["new"]}, {"body": ["suv"]}]


def media_slug(skill):
    return "vehicle-detail" if skill == "inventory.vehicle" else skill.replace(".", "-")


class Dealer:
    def __init__(self, base_url):
        self.rpc_url = self.rpc_url_from_card(base_url.rstrip("/"))
        self.extensions = []
        self.quiet_until = {}
        self.gone_vehicles = set()

    @staticmethod
    def rpc_url_from_card(base):
        """The JSON-RPC endpoint the agent card names (the proxy rewrites it to point at itself)."""
        try:
            with urllib.request.urlopen(base + "/.well-known/agent-card.json", timeout=TIMEOUT_S) as res:
                card = json.load(res)
            for interface in card.get("supportedInterfaces") or []:
                if interface.get("protocolBinding") == "JSONRPC" and interface.get("url"):
                    return interface["url"]
            if card.get("url"):
                return card["url"]
        except (OSError, ValueError):
            pass
        return base + "/a2a"

    def send(self, skill, data):
        """One attempt: (the reply's DataPart data, None), or (None, the reading of what went wrong)."""
        slug = media_slug(skill)
        body = {
            "jsonrpc": "2.0",
            "id": str(uuid.uuid4()),
            "method": "SendMessage",
            "params": {
                "message": {
                    "messageId": str(uuid.uuid4()),
                    "role": "ROLE_USER",
                    "parts": [{"data": {"type": skill + ".request", **data}, "mediaType": "application/vnd.autoagent." + slug + "-request+json"}],
                },
                "configuration": {"acceptedOutputModes": ["application/vnd.autoagent." + slug + "-response+json"]},
            },
        }
        headers = {"content-type": "application/json", "A2A-Version": "1.0"}
        if self.extensions:
            headers["A2A-Extensions"] = ", ".join(self.extensions)
        request = urllib.request.Request(self.rpc_url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as res:
                status, headers, raw = res.status, res.headers, res.read()
        except urllib.error.HTTPError as e:
            status, headers, raw = e.code, e.headers, e.read()  # an error status may still carry a JSON-RPC envelope
        except (OSError, ValueError, http.client.HTTPException) as e:
            # HTTPException: a reply cut short (IncompleteRead) is no answer either; the lead it
            # carried may exist, so it is retried under the same idempotency_key.
            return None, read_aap_error(e)
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        result = reply.get("result") if isinstance(reply, dict) and status < 300 else None
        parts = (result or {}).get("parts") or ((result or {}).get("message") or {}).get("parts") if isinstance(result, dict) else None
        if parts and isinstance(parts[0], dict) and "data" in parts[0]:
            return parts[0]["data"], None
        return None, read_aap_error({"status": status, "headers": headers, "body": raw})

    def call(self, skill, data):
        vin = data.get("vin") if skill == "inventory.vehicle" else None
        if vin in self.gone_vehicles:
            return None, "skipped: " + vin + " is gone"
        backoffs = 0
        reason = "no attempt made"
        for _ in range(MAX_RETRIES + 1):
            self.wait_for_quiet_period(skill)
            result, error = self.send(skill, data)
            if error is None:
                return result, None
            reason = error.get("code") or error["message"]
            if error.get("jsonRpcCode") == -32008:
                uri = error.get("extensionUri")
                if uri not in AAP_EXTENSION_URIS or uri in self.extensions:
                    return None, "extension required"
                self.extensions.append(uri)
                continue
            if not error["retryable"]:
                if vin is not None and reason in GONE_CODES:
                    self.gone_vehicles.add(vin)
                return None, reason
            if error.get("retryAfterMs") is not None:
                # Never sooner than told; the jitter keeps many buyers from returning at once.
                self.quiet_until[skill] = time.monotonic() + error["retryAfterMs"] / 1000 + random.random() * 0.05
            else:
                time.sleep(self.backoff_s(backoffs))
                backoffs += 1
        return None, "gave up after %d retries (%s)" % (MAX_RETRIES, reason)

    def backoff_s(self, previous):
        """base·2^n plus up to half of it as jitter: each wait is longer than the one before."""
        step = BASE_DELAY_S * 2**previous
        return step + random.random() * step / 2

    def wait_for_quiet_period(self, skill):
        left = self.quiet_until.get(skill, 0) - time.monotonic()
        if left > 0:
            time.sleep(left)


def vins_of(search_response):
    vehicles = ((search_response or {}).get("data") or {}).get("vehicles") or []
    return [v["vin"] for v in vehicles if isinstance(v, dict) and isinstance(v.get("vin"), str)]


def fan_out(bases):
    """One independent trip per dealer; answer within the budget with what has come back."""
    budget_s = float(os.environ.get("AAP_BUYER_BUDGET_MS", "4000")) / 1000
    lead_lock = threading.Lock()
    lead_sent = []
    out_lock = threading.Lock()

    def say(base, skill, failure):
        with out_lock:
            print("%s %s: %s" % (base, skill, "ok" if failure is None else "failed (" + failure + ")"), flush=True)

    def trip(base):
        dealer = Dealer(base)
        found = []
        for filters in SEARCHES:
            result, failure = dealer.call("inventory.search", {"filters": filters, "pagination": {"skip": 0, "limit": 5}})
            say(base, "inventory.search", failure)
            found.extend(vins_of(result))
            time.sleep(0.05)  # a polite pace between one dealer's calls
        with lead_lock:
            mine = bool(found) and not lead_sent
            if mine:
                lead_sent.append(base)
        if mine:
            # Dealer.call retries a lost reply here, at this dealer, with this key and payload.
            _, failure = dealer.call("lead.submit", {**LEAD, "vehicle_of_interest": {"vin": found[0]}, "idempotency_key": str(uuid.uuid4())})
            say(base, "lead.submit", failure)

    threads = [threading.Thread(target=trip, args=(base,), daemon=True) for base in bases]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + budget_s
    for thread in threads:
        thread.join(max(0, deadline - time.monotonic()))
    sys.stdout.flush()
    # Calls still out at the budget are abandoned, not awaited.
    os._exit(0)


def main():
    many = [u.strip() for u in os.environ.get("AAP_DEALER_URLS", "").split(",") if u.strip()]
    if many:
        return fan_out(many)
    base = os.environ.get("AAP_DEALER_URL")
    if not base:
        print("usage: AAP_DEALER_URL=http://127.0.0.1:8080 python3 buyer.py", file=sys.stderr)
        return 2
    dealer = Dealer(base)
    found = []

    def call(skill, data):
        result, failure = dealer.call(skill, data)
        print("%s: %s" % (skill, "ok" if failure is None else "failed (" + failure + ")"), flush=True)
        return result

    for filters in SEARCHES:
        result = call("inventory.search", {"filters": filters, "pagination": {"skip": 0, "limit": 5}})
        found.extend(vins_of(result))
    shortlist = list(dict.fromkeys(found))[:2]
    for vin in [REMEMBERED_VIN, *shortlist, REMEMBERED_VIN]:
        call("inventory.vehicle", {"vin": vin})
    # The free text is `message` in the AAP lead schema (`comments` was refused as invalid).
    for extra in ({}, {"message": "Is it still available this weekend?"}):
        voi = {"vehicle_of_interest": {"vin": shortlist[0]}} if shortlist else {}
        # One key per lead, kept across its retries, so a lost answer cannot create it twice.
        call("lead.submit", {**LEAD, **extra, **voi, "idempotency_key": str(uuid.uuid4())})
    return 0


if __name__ == "__main__":
    sys.exit(main())
