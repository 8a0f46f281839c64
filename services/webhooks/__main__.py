"""Run the webhooks process alone: ``python -m services.webhooks --bus kafka://HOST:PORT``."""
from shared.runner import main

main("webhooks")
