/**
 * `kopfgen.py`, the generated package's shim over kopf: what every resource module uses. It
 * makes kopf issue #693 real without changing kopf: a registration helper wraps the user's
 * function, and when it raises a kopf error carrying a `status`, merges that status into
 * `status.<handler id>` through kopf's `patch` kwarg (the same `dict.update` kopf applies to a
 * returned result in `progression.deliver_results`), then re-raises, so kopf's retries, delays,
 * logs and events are its own. kopf applies the patch after every attempt, failed or not
 * (`processing.process_resource_event` → `application.apply`; timers and daemons in
 * `daemons.py` after each attempt), which is what puts the status in `kubectl get` while the
 * handler is retried.
 *
 * It uses kopf's public API only (`kopf.on.*`, `kopf.timer`, `kopf.daemon`, the error classes,
 * `kopf.Patch` and the kwargs' types), as of kopf 1.38; `typing_extensions` for `TypedDict` with
 * `Required` and for `Protocol` on Python 3.9 and 3.10. The text is the same in every package.
 */

/**
 * The shim's path in the generated package. No group's package can take the name: a group has a
 * dot, so its package name an underscore. Not `_kopfgen`: checkers take a module whose name is
 * private, once the package's `__init__.py` imports from it, as private where modules use it.
 */
export const SHIM_PATH = 'kopfgen.py';

export const SHIM_TEXT = String.raw`"""
kopfgen's shim over kopf (kopf issue #693): registration helpers that type a handler's kwargs
and merge the status of a raised kopf error into status.<handler id>.

A helper such as MyResourceMyapp.on_create() wraps kopf.on.create(group, version, plural,
id="myapp", ...). When the decorated function raises kopf.TemporaryError or kopf.PermanentError
(the generated subclasses, or any other carrying a "status" attribute), the status is merged
into status.myapp through kopf's "patch" kwarg, as kopf merges a returned result, and the error
is raised again: kopf retries, delays, logs and posts events exactly as it would without the
shim, and writes the patch after the failed attempt, so the status reaches kubectl get.
"""
import asyncio
import copy
import datetime
import functools
import inspect
import sys
from typing import Any, Awaitable, Callable, Dict, Generic, List, Mapping, Optional, TypeVar, Union, cast

import kopf
from typing_extensions import Protocol, Required, TypedDict, Unpack

_Body = TypeVar("_Body")
_Spec = TypeVar("_Spec")
_Status = TypeVar("_Status")
_Result = TypeVar("_Result")
_Body_contra = TypeVar("_Body_contra", contravariant=True)
_Spec_contra = TypeVar("_Spec_contra", contravariant=True)
_Status_contra = TypeVar("_Status_contra", contravariant=True)
_Result_co = TypeVar("_Result_co", covariant=True)

# What kopf waits before retrying a TemporaryError without a delay (execution.DEFAULT_RETRY_DELAY).
_DEFAULT_DELAY = 60.0


class OwnerReference(TypedDict, total=False):
    """An owner of a Kubernetes object (meta/v1 OwnerReference)."""

    apiVersion: Required[str]
    kind: Required[str]
    name: Required[str]
    uid: Required[str]
    blockOwnerDeletion: bool
    controller: bool


class ObjectMeta(TypedDict, total=False):
    """A Kubernetes object's metadata (meta/v1 ObjectMeta), as JSON carries it."""

    annotations: Dict[str, str]
    creationTimestamp: str
    deletionGracePeriodSeconds: int
    deletionTimestamp: str
    finalizers: List[str]
    generateName: str
    generation: int
    labels: Dict[str, str]
    managedFields: List[Dict[str, Any]]
    name: str
    namespace: str
    ownerReferences: List[OwnerReference]
    resourceVersion: str
    selfLink: str
    uid: str


class TemporaryError(kopf.TemporaryError, Generic[_Status]):
    """kopf.TemporaryError whose keyword "status" is merged into status.<handler id>."""

    status: Optional[_Status]

    def __init__(
        self,
        message: Optional[str] = None,
        *,
        delay: Optional[float] = _DEFAULT_DELAY,
        status: Optional[_Status] = None,
    ) -> None:
        super().__init__(message, delay=delay)
        self.status = status


class PermanentError(kopf.PermanentError, Generic[_Status]):
    """kopf.PermanentError whose keyword "status" is merged into status.<handler id>."""

    status: Optional[_Status]

    def __init__(self, message: Optional[str] = None, *, status: Optional[_Status] = None) -> None:
        super().__init__(message)
        self.status = status


_Returns = Union[Optional[_Result_co], Awaitable[Optional[_Result_co]]]


class ChangingFn(Protocol[_Body_contra, _Spec_contra, _Status_contra, _Result_co]):
    """A create, update, resume, delete or field handler: kopf's kwargs (callbacks.ChangingFn)."""

    def __call__(
        self,
        *,
        body: _Body_contra,
        spec: _Spec_contra,
        status: _Status_contra,
        meta: kopf.Meta,
        patch: kopf.Patch,
        logger: kopf.Logger,
        retry: int,
        started: datetime.datetime,
        runtime: datetime.timedelta,
        reason: str,
        diff: kopf.Diff,
        old: Any,
        new: Any,
        annotations: kopf.Annotations,
        labels: kopf.Labels,
        resource: kopf.Resource,
        uid: Optional[str],
        name: Optional[str],
        namespace: Optional[str],
        memo: Any,
        param: Any,
        **kwargs: Any,
    ) -> _Returns[_Result_co]: ...


class TimerFn(Protocol[_Body_contra, _Spec_contra, _Status_contra, _Result_co]):
    """A timer: kopf's kwargs (callbacks.TimerFn)."""

    def __call__(
        self,
        *,
        body: _Body_contra,
        spec: _Spec_contra,
        status: _Status_contra,
        meta: kopf.Meta,
        patch: kopf.Patch,
        logger: kopf.Logger,
        annotations: kopf.Annotations,
        labels: kopf.Labels,
        resource: kopf.Resource,
        uid: Optional[str],
        name: Optional[str],
        namespace: Optional[str],
        memo: Any,
        param: Any,
        **kwargs: Any,
    ) -> _Returns[_Result_co]: ...


class DaemonFn(Protocol[_Body_contra, _Spec_contra, _Status_contra, _Result_co]):
    """A daemon: kopf's kwargs (callbacks.DaemonFn); "stopped" tells it to end."""

    def __call__(
        self,
        *,
        body: _Body_contra,
        spec: _Spec_contra,
        status: _Status_contra,
        meta: kopf.Meta,
        patch: kopf.Patch,
        logger: kopf.Logger,
        stopped: kopf.DaemonStopped,
        retry: int,
        started: datetime.datetime,
        runtime: datetime.timedelta,
        annotations: kopf.Annotations,
        labels: kopf.Labels,
        resource: kopf.Resource,
        uid: Optional[str],
        name: Optional[str],
        namespace: Optional[str],
        memo: Any,
        param: Any,
        **kwargs: Any,
    ) -> _Returns[_Result_co]: ...


def merge_status(patch: kopf.Patch, handler_id: str, status: object) -> None:
    """
    Merges a status into status.<handler_id> of kopf's patch as kopf merges a handler's result
    (progression.deliver_results): a mapping updates the keys it holds (None deletes one when
    the patch is applied), anything else replaces the value.
    """
    statuses = patch.setdefault("status", {})
    if isinstance(status, Mapping):
        statuses.setdefault(handler_id, {}).update(status)
    else:
        statuses[handler_id] = copy.deepcopy(status)


_READY = "Ready"
_RECONCILING = "Reconciling"
_STALLED = "Stalled"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _reason(cause: str, handler_id: str) -> str:
    """<Cause>:<handler id> within metav1.Condition's reason pattern: other characters become "_"."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_,:") else "_" for c in handler_id)
    reason = (cause[:1].upper() + cause[1:] + ":" + safe)[:1024]
    return reason if reason[-1].isalnum() or reason[-1] == "_" else reason[:-1] + "_"


def set_condition(
    conditions: List[Dict[str, Any]], type: str, status: str, reason: str, message: str, generation: Optional[int]
) -> List[Dict[str, Any]]:
    """
    The conditions with one set as apimachinery's meta.SetStatusCondition does: a new type is appended,
    an existing one keeps its lastTransitionTime unless its status changes.
    """
    out: List[Dict[str, Any]] = []
    found = False
    for existing in conditions:
        if existing.get("type") != type:
            out.append(existing)
            continue
        found = True
        kept = existing.get("lastTransitionTime") if existing.get("status") == status else None
        out.append(_condition(type, status, reason, message, generation, kept or _now()))
    if not found:
        out.append(_condition(type, status, reason, message, generation, _now()))
    return out


def _condition(
    type: str, status: str, reason: str, message: str, generation: Optional[int], at: str
) -> Dict[str, Any]:
    entry: Dict[str, Any] = {
        "type": type,
        "status": status,
        "reason": reason,
        "message": message[:32768],
        "lastTransitionTime": at,
    }
    if generation is not None:
        entry["observedGeneration"] = generation
    return entry


def _fields(value: object) -> Mapping[str, Any]:
    return cast(Mapping[str, Any], value) if isinstance(value, Mapping) else {}


def _entries(value: object) -> List[Dict[str, Any]]:
    items = cast(List[object], value) if isinstance(value, list) else []
    return [dict(_fields(item)) for item in items if _fields(item)]


def conditions_after(
    body: Mapping[str, Any], handler_id: str, cause: str, outcome: str, message: str, readiness: str = "auto"
) -> Dict[str, Any]:
    """
    status.conditions and status.observedGeneration after one attempt of a handler, by kopfgen's rules
    (what its TypeScript runtime keeps, read by kstatus, kubectl wait, Helm, Flux): outcome "retry"
    sets Reconciling True (reason <Cause>:<id>, the error's message) and Ready Unknown; "failure" sets
    Stalled True and Ready False, the generation observed; "success" removes Reconciling and Stalled,
    sets Ready True and observes the generation, unless a Stalled of this generation stands (another
    handler of the object failed for good). kopf decides which handler runs when: with several handlers
    per cause, Ready follows each success. With readiness "manual" Ready is left to the handlers.
    """
    generation: Optional[int] = _fields(body.get("metadata")).get("generation")
    conditions = _entries(_fields(body.get("status")).get("conditions"))
    reason = _reason(cause, handler_id)
    fields: Dict[str, Any] = {}
    if outcome == "retry":
        conditions = set_condition(conditions, _RECONCILING, "True", reason, message, generation)
        conditions = [c for c in conditions if c.get("type") != _STALLED]
        ready = ("Unknown", reason, message)
    elif outcome == "failure":
        conditions = set_condition(conditions, _STALLED, "True", reason, message, generation)
        conditions = [c for c in conditions if c.get("type") != _RECONCILING]
        ready = ("False", reason, message)
        fields["observedGeneration"] = generation
    else:
        stalled = [
            c
            for c in conditions
            if c.get("type") == _STALLED and c.get("status") == "True" and c.get("observedGeneration") == generation
        ]
        if stalled:
            return {}
        conditions = [c for c in conditions if c.get("type") not in (_RECONCILING, _STALLED)]
        ready = ("True", cause[:1].upper() + cause[1:] + "Handled", "handler " + handler_id + " succeeded")
        fields["observedGeneration"] = generation
    if readiness == "auto":
        conditions = set_condition(conditions, _READY, ready[0], ready[1], ready[2], generation)
    fields["conditions"] = conditions
    if fields.get("observedGeneration") is None:
        fields.pop("observedGeneration", None)
    return fields


def _conditions(kwargs: Mapping[str, Any], handler_id: str, resource: Any, outcome: str, message: str) -> None:
    """Lays conditions_after into kopf's patch, for a resource that keeps them and a changing cause."""
    readiness: Optional[str] = getattr(resource, "conditions", None)
    cause: object = kwargs.get("reason")
    patch: object = kwargs.get("patch")
    body = _fields(kwargs.get("body"))
    if readiness is None or not isinstance(patch, kopf.Patch) or not body:
        return
    if cause is None or str(cause) not in ("create", "update", "resume"):
        return
    fields = conditions_after(body, handler_id, str(cause), outcome, message, readiness)
    if fields:
        patch.setdefault("status", {}).update(fields)


def keep_conditions(resource: Any, readiness: str = "auto") -> None:
    """
    Opt a resource in to kopfgen's automatic conditions (kopf keeps none): its handlers' outcomes set
    status.conditions (Ready, Reconciling, Stalled) and status.observedGeneration in the patch kopf
    writes after each attempt, by conditions_after's rules. The CRD's status schema must have them.
    readiness="manual" leaves Ready to the handlers.
    """
    resource.conditions = readiness


def _is_async(fn: Callable[..., Any]) -> bool:
    """Whether kopf awaits fn or runs it in a thread: invocation.is_async_fn, step by step."""
    if isinstance(fn, functools.partial):
        return _is_async(fn.func)
    inner = getattr(fn, "__wrapped__", None)
    if inner is not None:
        return _is_async(inner)
    if sys.version_info >= (3, 14):
        # asyncio's is deprecated from 3.14 on; inspect's answers the same for every coroutine function
        return inspect.iscoroutinefunction(fn)
    return asyncio.iscoroutinefunction(fn)


def _deliver(kwargs: Mapping[str, Any], handler_id: str, error: BaseException) -> None:
    status = getattr(error, "status", None)
    patch = kwargs.get("patch")
    if status is not None and isinstance(patch, kopf.Patch):
        merge_status(patch, handler_id, status)


def _wrap(fn: Callable[..., Any], handler_id: str, owns_result: bool, resource: Any = None) -> Callable[..., Any]:
    """
    fn as kopf calls it, with the status of a kopf error it raises merged into status.<id>. An
    async fn stays async and a sync one sync (kopf runs those in a thread): functools.wraps keeps
    kopf's view of it (__wrapped__). With "owns_result" (a registration with a field, whose kopf
    id is "<id>/<field>"), the result is merged into status.<id> here too, not left to kopf. For a
    resource that keeps conditions (keep_conditions), each outcome sets them in the same patch.
    """

    def failed(kwargs: Mapping[str, Any], error: BaseException) -> None:
        outcome = "failure" if isinstance(error, kopf.PermanentError) else "retry"
        _conditions(kwargs, handler_id, resource, outcome, str(error))

    def done(kwargs: Mapping[str, Any], result: object) -> object:
        _conditions(kwargs, handler_id, resource, "success", "")
        patch = kwargs.get("patch")
        if not owns_result or result is None or not isinstance(patch, kopf.Patch):
            return result
        merge_status(patch, handler_id, result)
        return None

    if _is_async(fn):

        @functools.wraps(fn)
        async def async_wrapper(**kwargs: Any) -> object:
            try:
                return done(kwargs, await fn(**kwargs))
            except (kopf.TemporaryError, kopf.PermanentError) as error:
                _deliver(kwargs, handler_id, error)
                failed(kwargs, error)
                raise
            except Exception as error:
                failed(kwargs, error)
                raise

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> object:
        try:
            return done(kwargs, fn(**kwargs))
        except (kopf.TemporaryError, kopf.PermanentError) as error:
            _deliver(kwargs, handler_id, error)
            failed(kwargs, error)
            raise
        except Exception as error:
            failed(kwargs, error)
            raise

    return wrapper


class Resource(Generic[_Body, _Spec, _Status]):
    """A custom resource as kopf selects it, typed by its object, spec and status."""

    def __init__(self, group: str, version: str, plural: str, kind: str) -> None:
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        # keep_conditions sets "auto" or "manual": who sets Ready.
        self.conditions: Optional[str] = None


_Decorator = Callable[[_Result], _Result]


class _Options(TypedDict, total=False):
    """kopf's options of every handler kind, passed to its decorator as they are."""

    param: Any
    errors: Optional[kopf.ErrorsMode]
    timeout: Optional[float]
    retries: Optional[int]
    backoff: Optional[float]
    labels: Optional[Mapping[str, Any]]
    annotations: Optional[Mapping[str, Any]]
    when: Optional[Callable[..., bool]]
    value: Any
    registry: Optional[kopf.OperatorRegistry]


class ChangingOptions(_Options, total=False):
    """kopf.on.create's options (and those every other kind adds to)."""

    field: Optional[kopf.FieldSpec]


class UpdateOptions(ChangingOptions, total=False):
    """kopf.on.update's options: old and new filter the values."""

    old: Any
    new: Any


class ResumeOptions(ChangingOptions, total=False):
    """kopf.on.resume's options."""

    deleted: Optional[bool]


class DeleteOptions(ChangingOptions, total=False):
    """kopf.on.delete's options: optional=True puts no finalizer on the objects."""

    optional: Optional[bool]


class FieldOptions(_Options, total=False):
    """kopf.on.field's options: the field is required."""

    field: Required[kopf.FieldSpec]
    old: Any
    new: Any


class TimerOptions(ChangingOptions, total=False):
    """kopf.timer's options."""

    interval: Optional[float]
    initial_delay: Optional[float]
    sharp: Optional[bool]
    idle: Optional[float]


class DaemonOptions(ChangingOptions, total=False):
    """kopf.daemon's options."""

    initial_delay: Optional[float]
    cancellation_backoff: Optional[float]
    cancellation_timeout: Optional[float]
    cancellation_polling: Optional[float]


class Handler(Generic[_Body, _Spec, _Status, _Result]):
    """
    A handler id of a resource: kopf's decorators with id=<id>, the kwargs typed by the resource
    and the return value by the handler's status. The options are kopf's own, passed through.
    """

    def __init__(self, resource: Resource[_Body, _Spec, _Status], id: str) -> None:
        self.resource = resource
        self.id = id

    def _register(self, decorator: Callable[[Callable[..., Any]], Any], field: object) -> Callable[[Any], Any]:
        def register(fn: Any) -> Any:
            decorator(_wrap(fn, self.id, field is not None, self.resource))
            return fn

        return register

    def on_create(self, **options: Unpack[ChangingOptions]) -> _Decorator[ChangingFn[_Body, _Spec, _Status, _Result]]:
        """kopf.on.create for this handler id."""
        r = self.resource
        return self._register(kopf.on.create(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))

    def on_update(self, **options: Unpack[UpdateOptions]) -> _Decorator[ChangingFn[_Body, _Spec, _Status, _Result]]:
        """kopf.on.update for this handler id."""
        r = self.resource
        return self._register(kopf.on.update(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))

    def on_resume(self, **options: Unpack[ResumeOptions]) -> _Decorator[ChangingFn[_Body, _Spec, _Status, _Result]]:
        """kopf.on.resume for this handler id."""
        r = self.resource
        return self._register(kopf.on.resume(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))

    def on_delete(self, **options: Unpack[DeleteOptions]) -> _Decorator[ChangingFn[_Body, _Spec, _Status, _Result]]:
        """kopf.on.delete for this handler id (a finalizer on every object unless optional=True)."""
        r = self.resource
        return self._register(kopf.on.delete(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))

    def on_field(self, **options: Unpack[FieldOptions]) -> _Decorator[ChangingFn[_Body, _Spec, _Status, _Result]]:
        """kopf.on.field for this handler id: old and new are the field's values."""
        r = self.resource
        return self._register(kopf.on.field(r.group, r.version, r.plural, id=self.id, **options), options["field"])

    def timer(self, **options: Unpack[TimerOptions]) -> _Decorator[TimerFn[_Body, _Spec, _Status, _Result]]:
        """kopf.timer for this handler id."""
        r = self.resource
        return self._register(kopf.timer(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))

    def daemon(self, **options: Unpack[DaemonOptions]) -> _Decorator[DaemonFn[_Body, _Spec, _Status, _Result]]:
        """kopf.daemon for this handler id."""
        r = self.resource
        return self._register(kopf.daemon(r.group, r.version, r.plural, id=self.id, **options), options.get("field"))
`;
