"""Run the standings service alone: ``python -m services.standings --bus kafka://HOST:PORT``."""
from shared.runner import main

main("standings")
