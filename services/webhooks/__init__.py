"""The webhooks process: pushes the log's messages, signed, to integrators' subscriptions
(issue 12 item 4). :mod:`.core` decides what to deliver and judges each attempt (pure);
:mod:`.process` does the HTTP (httpx) and the log."""
