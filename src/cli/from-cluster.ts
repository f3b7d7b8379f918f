/**
 * `kopfgen generate --from-cluster [context]`: the CRDs installed in a cluster as inputs, by name
 * or by label selector, as kopium reads them. Each CRD becomes a source text of its own: the
 * object as the API server returns it, without `metadata.managedFields` and `status`, as
 * two-space JSON, so a diagnostic's line:col is the one `kubectl get crd <name> -o json` shows
 * (kubectl hides managedFields too) and the file is named `<cluster>/crd/<name>`. Reading is
 * the effect at the edge; every problem (kubeconfig, context, connection, a name not found, a
 * selector matching nothing) is a diagnostic.
 */
import type { SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { KubeClient, KubeError } from '../runtime/kube/client.js';
import { readKubeconfig } from '../runtime/kube/kubeconfig.js';
import { isPlainObject } from '../runtime/json.js';
import { messageOf } from '../runtime/error-message.js';

export interface ClusterSource {
  /** The kubeconfig context; default: the current context. */
  context?: string;
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, in-cluster. */
  kubeconfig?: string;
  /** CRD names (`<plural>.<group>`). */
  names: string[];
  /** A label selector (`-l`), as `kubectl get crd -l` takes it. */
  selector?: string;
}

export const CLUSTER_FILE = '<cluster>';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export async function readCluster(from: ClusterSource): Promise<{ sources: SourceText[]; diagnostics: Diagnostic[] }> {
  const connected = await connect(from);
  if (typeof connected === 'string') return { sources: [], diagnostics: [problem('KG151', connected)] };
  const client = connected;
  const sources: SourceText[] = [];
  const diagnostics: Diagnostic[] = [];
  try {
    for (const name of from.names) {
      try {
        sources.push(sourceOf(await client.request('GET', `${CRDS}/${encodeURIComponent(name)}`)));
      } catch (e) {
        const missing = e instanceof KubeError && e.status === 404;
        diagnostics.push(
          missing ? problem('KG153', `no CustomResourceDefinition ${name} in the cluster`, name) : failed(e, name),
        );
      }
    }
    if (from.selector !== undefined) {
      try {
        const list = await client.request<{ items?: unknown[] }>('GET', CRDS, {
          query: { labelSelector: from.selector },
        });
        const items = (list.items ?? []).filter(isPlainObject);
        if (items.length === 0)
          diagnostics.push(problem('KG154', `no CustomResourceDefinition in the cluster matches -l ${from.selector}`));
        // Items of a list come without apiVersion and kind (the list has them): put them back, first, as kubectl does.
        sources.push(
          ...items.map((item) =>
            sourceOf({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...item }),
          ),
        );
      } catch (e) {
        diagnostics.push(failed(e, `-l ${from.selector}`));
      }
    }
  } finally {
    client.close();
  }
  // A CRD both named and selected is read once; order by name, as files are.
  const unique = new Map(sources.map((s) => [s.file, s]));
  return { sources: [...unique.values()].sort((a, b) => (a.file < b.file ? -1 : 1)), diagnostics };
}

/** The client for the kubeconfig and context, or why there is none. */
async function connect(from: ClusterSource): Promise<KubeClient | string> {
  const read = readKubeconfig({ file: from.kubeconfig, context: from.context });
  if ('problem' in read) return read.problem;
  return new KubeClient(read.config);
}

function sourceOf(crd: Record<string, unknown>): SourceText {
  const metadata = isPlainObject(crd.metadata) ? crd.metadata : {};
  const shownMetadata = Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== 'managedFields'));
  // The server's key order is kept: it is the order `kubectl get -o json` prints.
  const shown = Object.fromEntries(
    Object.entries(crd)
      .filter(([key]) => key !== 'status')
      .map(([key, value]) => [key, key === 'metadata' ? shownMetadata : value]),
  );
  const name = typeof metadata.name === 'string' ? metadata.name : '?';
  return { file: `${CLUSTER_FILE}/crd/${name}`, text: `${JSON.stringify(shown, null, 2)}\n` };
}

function failed(e: unknown, what: string): Diagnostic {
  return problem('KG152', `cannot read ${what} from the cluster: ${messageOf(e)}`, what);
}

function problem(code: string, message: string, what = ''): Diagnostic {
  return {
    severity: 'error',
    code,
    message,
    file: what && !what.startsWith('-l') ? `${CLUSTER_FILE}/crd/${what}` : CLUSTER_FILE,
    line: 1,
    col: 1,
    pointer: '',
  };
}
