#!/usr/bin/env python3
"""Container health check of an Arbiter process (docker-compose.yml): exit 0 when its
``/healthz`` answers 200 and does not say ``"ready": false``, else 1.

The port is the ``--port`` of the container's main process (PID 1), so one check serves every
service. Installed in the image as ``arbiter-healthcheck`` (deploy/Dockerfile).
"""
import json
import sys
import urllib.request


def main() -> int:
    argv = open("/proc/1/cmdline", "rb").read().decode().split("\0")
    port = argv[argv.index("--port") + 1] if "--port" in argv else "8000"
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=3) as r:
            body = json.load(r)
    except (OSError, ValueError) as e:  # refused, timeout, HTTP error status, not JSON
        print(f"unhealthy: {e}", file=sys.stderr)
        return 1
    if body.get("ready") is False:
        print("not ready", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
