"""Run the adjudication service alone: ``python -m services.adjudication --bus kafka://HOST:PORT``."""
from shared.runner import main

main("adjudication")
