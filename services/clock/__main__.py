"""Run the clock service alone: ``python -m services.clock --bus kafka://HOST:PORT``."""
from shared.runner import main

main("clock")
