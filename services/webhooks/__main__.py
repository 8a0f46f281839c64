"""Run the webhooks process alone: ``python -m services.webhooks --bus kafka://HOST:PORT``."""
from services.runner import main

main("webhooks")
