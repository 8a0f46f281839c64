"""Run the tournament processor alone: ``python -m services.tournament --bus kafka://HOST:PORT``."""
from shared.runner import main

main("tournament")
