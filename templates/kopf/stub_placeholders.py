"""
Stand-ins for the names a handler stub uses (stub_handler.py), so the templates type-check
with pyright like the stubs made from them (test/integration/kopf-types.test.ts).
"""
from typing import Any, Dict, Optional

from typing_extensions import TypedDict


class KgSpec(TypedDict, total=False):
    image: str


class KgResourceStatus(TypedDict, total=False):
    kg_id: Dict[str, Any]


class KgStatus(TypedDict, total=False):
    phase: str


class _Definition:
    def kg_register(self) -> Any: ...


KgDefinition = _Definition()
kg_result: Optional[KgStatus] = None
