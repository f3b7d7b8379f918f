"""
The operator's entry point: `kopf run handlers.py --all-namespaces` loads it (kopf puts this
directory on the import path), and importing a handlers module registers its handlers with kopf.
"""
{{imports}}
