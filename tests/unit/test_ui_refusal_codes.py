"""The browser pages' Chinese meaning of every refusal code (services/gateway/web/src/
refusal-codes.json, shown beside the server's detail in zh mode): each code of the API's closed
lists (the gateway's GatewayCode and ClaimRejectCode, the game service's RejectCode, the
tournament service's TournamentRejectCode) has one, and the table names no other code."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

from contracts.messages import RejectCode, TournamentRejectCode
from services.gateway.errors import ClaimRejectCode, GatewayCode

TABLE = Path(__file__).resolve().parents[2] / "services/gateway/web/src/refusal-codes.json"
HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_refusal_code_has_a_chinese_meaning():
    zh = json.loads(TABLE.read_text(encoding="utf-8"))
    codes = {*get_args(GatewayCode), *get_args(ClaimRejectCode), *get_args(RejectCode), *get_args(TournamentRejectCode)}
    assert sorted(codes - zh.keys()) == []
    assert sorted(zh.keys() - codes) == []
    assert [c for c, text in zh.items() if not HAN.search(text)] == []
    assert (zh["incorrect-claim"], zh["illegal"], zh["not-yourself"]) == ("申请不成立", "着法不合规则", "棋手只能为自己操作")
