"""CPU cost of encrypting Works at rest (issue #13, D4): per sealed value, and per Work write.

Every Work is encrypted (a Work carries the Secrets it propagates). Two figures:

  seal/open   `SecretEncryption.to_storage` / `from_storage` of a Work's JSON of a given size, in us
  write       CPU per Work update through the whole in-process write pipeline (defaults, validation,
              managedFields, store, watch cache) with the transformer on and off, in the same run,
              and the difference: what encryption adds to a Work write

The write figure uses the in-memory store so that the disk does not blur the difference. Seal/open
print the median of `--rounds`, writes the least of them (the machine is shared and noisy).
Run: `.venv/bin/python bench/encryption.py [--works 200] [--rounds 7]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import orjson

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds
from flotilla.apiserver.store.encryption import SecretEncryption, new_key
from flotilla.storage.memory import MemoryBackend

NAMESPACE = GroupVersionKind("", "v1", "Namespace")
KEY = "/registry/work.karmada.io/works/karmada-es-m1/w"


def deployment_manifest(index: int, padding: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"app-{index}", "namespace": "default", "labels": {"app": f"app-{index}"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": f"app-{index}"}},
            "template": {
                "metadata": {"labels": {"app": f"app-{index}"}},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx:1.27",
                            "env": [{"name": "PADDING", "value": "p" * padding}],
                        }
                    ]
                },
            },
        },
    }


def work(index: int, padding: int) -> dict[str, Any]:
    return {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {"name": f"w{index}", "namespace": "karmada-es-m1"},
        "spec": {"workload": {"manifests": [deployment_manifest(index, padding)]}},
    }


def seal_and_open(transformer: SecretEncryption, size: int, repeats: int) -> tuple[float, float]:
    value = orjson.dumps(work(0, max(size - 600, 0)))
    started = time.process_time()
    for _ in range(repeats):
        sealed = transformer.to_storage(KEY, value)
    sealing = (time.process_time() - started) / repeats
    started = time.process_time()
    for _ in range(repeats):
        transformer.from_storage(KEY, sealed)
    return sealing * 1e6, (time.process_time() - started) / repeats * 1e6


async def write_cost(encrypted: bool, works: int, padding: int) -> float:
    """CPU seconds per Work update through the in-process pipeline."""
    api = EmbeddedAPI(MemoryBackend())
    if encrypted:
        api.cache.transformer = SecretEncryption([new_key("key-1")])
    await api.start()
    try:
        await install_karmada_crds(api.context)
        client = api.client("bench")
        await client.create(NAMESPACE, {"metadata": {"name": "karmada-es-m1"}})
        for index in range(works):
            await client.create(constants.WORK, work(index, padding))
        started = time.process_time()
        for index in range(works):
            await client.patch(
                constants.WORK,
                f"w{index}",
                {"metadata": {"labels": {"round": "2"}}},
                namespace="karmada-es-m1",
            )
        return (time.process_time() - started) / works
    finally:
        await api.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--works", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    transformer = SecretEncryption([new_key("key-1")])
    print("AES-256-GCM of a Work's JSON (median of rounds):")
    for size in (1_000, 2_500, 10_000, 100_000, 1_000_000):
        repeats = max(20, 2_000_000 // size)
        rounds = [seal_and_open(transformer, size, repeats) for _ in range(args.rounds)]
        seal = statistics.median(r[0] for r in rounds)
        unseal = statistics.median(r[1] for r in rounds)
        print(f"  {size:>9,} bytes: seal {seal:8.1f} us, open {unseal:8.1f} us")

    print(f"CPU per Work update through the pipeline ({args.works} Works, in-memory store):")
    for padding in (1_500, 100_000):
        plain, sealed = [], []
        for _ in range(args.rounds):
            plain.append(asyncio.run(write_cost(False, args.works, padding)))
            sealed.append(asyncio.run(write_cost(True, args.works, padding)))
        off, on = min(plain) * 1e6, min(sealed) * 1e6
        print(
            f"  Work of ~{padding / 1000:.1f} KB: {off:8.1f} us plain, {on:8.1f} us encrypted "
            f"({on - off:+.1f} us, {(on - off) / off:+.1%})"
        )


if __name__ == "__main__":
    main()
