"""The cached partitioner puts every keyed record where aiokafka's default partitioner (murmur2,
as the Java client) puts it: the services' decisions and the gateway's commands for one aggregate
must land on one partition whichever client wrote them."""
from aiokafka.partitioner import DefaultPartitioner

from shared.eventlog.kafka import keyed_partitioner, partition_of


def test_keyed_records_go_where_aiokafkas_default_partitioner_puts_them():
    default = DefaultPartitioner()
    keys = [f"game-{i:05d}".encode() for i in range(500)] + [f"tournament-t{i}".encode() for i in range(50)]
    keys += ["game-象棋-é".encode(), b"", b"\x00\xff"]
    for n in (1, 3, 8, 12):
        parts = list(range(n))
        for key in keys:
            expected = default(key, parts, parts)
            assert keyed_partitioner(key, parts, parts) == expected
            assert partition_of(key, n) == expected
    # the same key asked again (cached) still answers the same
    assert [partition_of(k, 8) for k in keys] == [default(k, list(range(8)), []) for k in keys]


def test_records_without_a_key_go_to_an_available_partition():
    assert keyed_partitioner(None, [0, 1, 2, 3], [2]) == 2
    assert keyed_partitioner(None, [0, 1, 2, 3], []) in {0, 1, 2, 3}
