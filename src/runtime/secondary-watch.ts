/**
 * What the leader watches beside its handled resources: the owned kinds of `child` handlers and the
 * indexed kinds of `defineIndex`, one watch per kind and namespace for all of them (controller-runtime's
 * shared informers). The consumer keeps no objects, only each one's resourceVersion and controller
 * (a relist or a repeated event is dropped, as the store does for handled objects; a deletion missed
 * while disconnected is still told), feeds the indexes, and tells the controller of an object's owner
 * (by its controller owner reference: group and kind of a handled resource, the owner's uid) that it
 * changed, so the owner's child handlers run.
 */
import type { KubernetesObject, OwnerReference } from './api/kube-types.js';
import type { ControllerLookup } from './effects/typed-client.js';
import type { Logger } from './api/context.js';
import type { IndexFeed } from './api/registry.js';
import type { ChildNews } from './children.js';
import { messageOf } from './error-message.js';
import { resourceVersionOf } from './reconcile/decide.js';
import { controllerOf } from './ownership.js';
import { newerVersion, uidOf } from './store.js';
import type { WatchConsumer } from './watcher.js';

/** What the watch needs of a handled resource's controller (controller.ts). */
export interface ChildOwner {
  readonly resource: { group: string; kind: string };
  childChanged(owner: string, news: ChildNews): void;
}

interface Known {
  resourceVersion: string | undefined;
  name: string;
  namespace: string | undefined;
  /** The controller's uid and the controller that handles its kind, when the object has one handled here. */
  owner?: { uid: string; controller: ChildOwner };
  /** Its controller owner reference, whoever it names (the typed client refuses to take a child from it). */
  controllerRef?: OwnerReference;
}

/** `group/Kind` of an apiVersion and kind (an owner reference names any served version). */
function groupKind(apiVersion: string, kind: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return `${slash < 0 ? '' : apiVersion.slice(0, slash)}/${kind}`;
}

export class SecondaryWatch implements WatchConsumer {
  private readonly known = new Map<string, Known>();
  /** The uid of each object by namespace and name. */
  private readonly uids = new Map<string, string>();
  /** Whether a first list completed (before it, what is not known may still exist). */
  private complete = false;
  /** Handled resources whose child handlers own this kind, by `group/Kind`. */
  private readonly owners = new Map<string, ChildOwner>();

  constructor(
    /** `describe()` of the watched kind. */
    private readonly kind: string,
    owners: readonly ChildOwner[],
    private readonly indexes: readonly { id: string; store: IndexFeed }[],
    private readonly logger: Logger,
  ) {
    for (const controller of owners)
      this.owners.set(`${controller.resource.group}/${controller.resource.kind}`, controller);
  }

  upsert(body: KubernetesObject, event?: 'ADDED' | 'MODIFIED'): void {
    const uid = uidOf(body);
    const resourceVersion = resourceVersionOf(body);
    const before = this.known.get(uid);
    if (before && !newerVersion(resourceVersion, before.resourceVersion)) return;
    for (const index of this.indexes) {
      try {
        index.store.upsert(uid, body);
      } catch (error) {
        this.logger.error(`index ${index.id}: its function failed for ${this.kind} ${uid}: ${messageOf(error)}`);
      }
    }
    const name = String(body.metadata?.name);
    const namespace = body.metadata?.namespace;
    const ref = controllerOf(body);
    const controller = ref && this.owners.get(groupKind(ref.apiVersion, ref.kind));
    const owner = ref && controller ? { uid: ref.uid, controller } : undefined;
    this.known.set(uid, { resourceVersion, name, namespace, owner, controllerRef: ref });
    this.uids.set(`${namespace ?? ''}\u0000${name}`, uid);
    // an owner that let go of the object hears of it as a deletion of its child
    if (before?.owner && before.owner.uid !== owner?.uid) this.tell(before.owner, uid, before, undefined);
    if (owner) this.tell(owner, uid, { name, namespace }, body, before ? 'MODIFIED' : (event ?? 'ADDED'));
  }

  delete(body: KubernetesObject): void {
    this.forget(uidOf(body));
  }

  listed(uids: Set<string>): void {
    for (const uid of [...this.known.keys()]) if (!uids.has(uid)) this.forget(uid);
    this.complete = true;
    for (const index of this.indexes) {
      index.store.retain(uids);
      index.store.listed();
    }
  }

  /**
   * The controller of the object `namespace/name` as this watch last saw it (typed-client.ts
   * `refuseOwned`); undefined before the first list completed (the object may exist unseen).
   */
  controllerOf(namespace: string | undefined, name: string): ControllerLookup | undefined {
    if (!this.complete) return undefined;
    const uid = this.uids.get(`${namespace ?? ''}\u0000${name}`);
    const known = uid === undefined ? undefined : this.known.get(uid);
    return known ? { found: true, controller: known.controllerRef } : { found: false };
  }

  /** Objects known (for tests and the benchmark). */
  get size(): number {
    return this.known.size;
  }

  private forget(uid: string): void {
    const before = this.known.get(uid);
    this.known.delete(uid);
    const key = `${before?.namespace ?? ''}\u0000${before?.name ?? ''}`;
    if (before && this.uids.get(key) === uid) this.uids.delete(key);
    for (const index of this.indexes) index.store.remove(uid);
    if (before?.owner) this.tell(before.owner, uid, before, undefined);
  }

  private tell(
    owner: NonNullable<Known['owner']>,
    uid: string,
    { name, namespace }: Pick<Known, 'name' | 'namespace'>,
    object: KubernetesObject | undefined,
    event: ChildNews['event'] = 'DELETED',
  ): void {
    owner.controller.childChanged(owner.uid, { kind: this.kind, uid, name, namespace, event, object });
  }
}
