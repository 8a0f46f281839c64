"""Run the penalties service alone: ``python -m services.penalties --bus kafka://HOST:PORT``."""
from shared.runner import main

main("penalties")
