"""Done-when of issue 5: a whole 9x9 Go game played through the gateway on Kafka, with a disputed
dead-stone agreement (White marks, Black rejects, play resumes, both pass again, still disputed,
the arbiter rules), ending in the arbiter-ruled count W+5.5 of the real record. The game's log
is then read back from Kafka and re-derived by the audit with no difference."""
from __future__ import annotations

import pytest

from contracts.messages import TOPICS
from services.tools.audit import audit
from services.tools.embedded import arbiter_client
from services.tools.logio import select
from shared.eventlog.kafka import KafkaLog
from tests.integration.test_go_gateway import check_counted, play_disputed_game
from tests.unit.test_go_services import record_moves

pytestmark = pytest.mark.kafka


async def test_a_disputed_9x9_game_on_kafka_ends_in_the_arbiter_ruled_count(kafka_bus, kafka_bootstrap,
                                                                          shared_data):
    async with arbiter_client(kafka_bus, ticks=False) as c:
        g = await play_disputed_game(c, record_moves(shared_data))
    check_counted(g)
    log = KafkaLog(kafka_bootstrap)
    try:
        msgs = select(await log.read_many(TOPICS), f"game-{g['game_id']}")
    finally:
        await log.stop()
    types = [m.type for m in msgs]
    assert types.count("DeadStonesProposed") == 3 and types.count("PlayResumed") == 1
    assert types.count("GameScored") == 1 and types.count("GameEnded") == 1
    assert types.index("DeadStonesRuled") < types.index("GameScored") < types.index("GameEnded")
    assert await audit(msgs) == []
