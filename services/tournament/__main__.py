"""Run the tournament processor alone: ``python -m services.tournament --bus kafka://HOST:PORT``."""
from services.runner import main

main("tournament")
