"""Run the validation service alone: ``python -m services.validation --bus kafka://HOST:PORT``."""
from shared.runner import main

main("validation")
