"""Run the pairing service alone: ``python -m services.pairing --bus kafka://HOST:PORT``."""
from shared.runner import main

main("pairing")
