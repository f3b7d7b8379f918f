# One handler stub: the text of the region below, with the Kg…/kg_… placeholders filled in
# (see stub_placeholders.py). It type-checks as written, so every generated stub does too.
from typing import Any, Optional

import kopf

from .stub_placeholders import KgDefinition, KgResourceStatus, KgSpec, KgStatus, kg_result


# region stub
@KgDefinition.kg_register()
async def kg_function(
    spec: KgSpec,
    status: KgResourceStatus,
    patch: kopf.Patch,
    logger: kopf.Logger,
    **_: Any,
) -> Optional[KgStatus]:
    """
    Handler `kg_id`, on kg_cause. What it returns is merged into `status.kg_id`.
    kg_feeds
    To fail, raise KgTemporaryError (retried after `delay` seconds)
    or KgPermanentError (not retried), both in kg_module:
    the `status` you give them is merged the same way.
    """
    logger.info("kg_cause handler not implemented yet")
    return kg_result
# endregion
