"""Run the gateway service alone: ``python -m services.gateway --bus kafka://HOST:PORT``."""
from shared.runner import main

main("gateway")
