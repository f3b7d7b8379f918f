# The head of a handlers module that kopfgen scaffolds for the kopf target: the text of the
# region below, with KgKind, KgCrd, KgSource and KgDefinition (the first handler's helper) filled
# in. Imports and stubs (stub_handler.py) follow it.
# region head
# Handlers for KgKind (KgCrd), scaffolded by kopfgen from KgSource.
# This file is yours: kopfgen never changes a line you write here. When the CRD names a new
# handler, `kopfgen generate` appends its stubs (and their imports) and says so; stubs whose
# handler is gone are reported, never deleted. Importing this module registers its handlers
# with kopf: import it from the module `kopf run` loads, or pass it to `kopf run` itself.
#
# Besides the stubs below, a handler can run on a schedule, as one long-running task per object,
# on a field's changes or on deletion, with kopf's options and filters. For example:
#   @KgDefinition.timer(interval=60, idle=30)  # every 60 s per object
#   @KgDefinition.daemon(cancellation_timeout=10)  # one task per object; `stopped` says when to end
#   @KgDefinition.on_field(field="spec.replicas")  # `old` and `new` are the field's values
#   @KgDefinition.on_delete(optional=True)  # optional: no finalizer on the objects
# endregion
