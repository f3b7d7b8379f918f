/** Descriptors and targets shared by the manifests tests. */
import { defineResource, type ResourceDescriptor } from '../../src/runtime/api/define.js';
import { myResourceDescriptor } from './resource-env.js';
import { resolveTarget, type ManifestChoices, type ManifestTarget } from '../../src/manifests/manifest-target.js';

export function resource(over: Partial<ResourceDescriptor> = {}): ResourceDescriptor {
  return defineResource({ ...myResourceDescriptor(), ...over });
}

export function target(resources: ResourceDescriptor[], choices: Partial<ManifestChoices> = {}): ManifestTarget {
  const resolved = resolveTarget(resources, { module: 'dist/operator.js', source: 'dist/operator.js', ...choices });
  if (resolved.target === undefined) throw new Error(resolved.problems.join('\n'));
  return resolved.target;
}
