"""Run the gateway service alone: ``python -m services.gateway --bus kafka://HOST:PORT``."""
from services.runner import main

main("gateway")
