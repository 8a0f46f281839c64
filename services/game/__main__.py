"""Run the game processor alone: ``python -m services.game --bus kafka://HOST:PORT``."""
from services.runner import main

main("game")
