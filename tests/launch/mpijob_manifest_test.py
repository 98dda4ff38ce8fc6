#!/usr/bin/env python3
"""scripts/launch/mpijob.yaml against what it relies on in the MPI operator's v2beta1 MPIJob and
in Kubernetes: fields the CRD has (a misspelt one is dropped silently by the API server), a
launcher that is never restarted and starts after its workers, Guaranteed workers, a named
ReadWriteMany storage class, and one shape (slots, GPUs, ranks per host) said the same way
everywhere. No cluster needed: the manifest is read with PyYAML.

    mpijob_manifest_test.py MANIFEST
"""
import sys

import yaml

failures = []


def check(what, condition, detail=""):
    print(("ok: " if condition else "FAIL: ") + what + ("" if condition or not detail else f" ({detail})"))
    if not condition:
        failures.append(what)


documents = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
by_kind = {d["kind"]: d for d in documents}
check("a PersistentVolumeClaim and an MPIJob", set(by_kind) == {"PersistentVolumeClaim", "MPIJob"}, str(set(by_kind)))
claim, job = by_kind["PersistentVolumeClaim"], by_kind["MPIJob"]

check("MPIJob is kubeflow.org/v2beta1", job["apiVersion"] == "kubeflow.org/v2beta1", job["apiVersion"])
spec = job["spec"]
# The v2beta1 fields of MPIJobSpec, RunPolicy and ReplicaSpec (kubeflow/mpi-operator's CRD).
spec_fields = {"slotsPerWorker", "runLauncherAsWorker", "runPolicy", "mpiReplicaSpecs", "sshAuthMountPath",
               "launcherCreationPolicy", "mpiImplementation"}
run_policy_fields = {"cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit",
                     "schedulingPolicy", "suspend", "managedBy"}
replica_fields = {"replicas", "template", "restartPolicy"}
check("spec fields are MPIJobSpec's", set(spec) <= spec_fields, str(set(spec) - spec_fields))
check("runPolicy fields are RunPolicy's", set(spec["runPolicy"]) <= run_policy_fields,
      str(set(spec["runPolicy"]) - run_policy_fields))
replicas = spec["mpiReplicaSpecs"]
check("replica types Launcher and Worker", set(replicas) == {"Launcher", "Worker"}, str(set(replicas)))
for name, replica in replicas.items():
    check(f"{name} fields are ReplicaSpec's", set(replica) <= replica_fields, str(set(replica) - replica_fields))
    # The operator defaults the launcher to OnFailure, which reruns a failed benchmark.
    check(f"{name} restartPolicy is Never", replica.get("restartPolicy") == "Never", str(replica.get("restartPolicy")))

check("Open MPI", spec.get("mpiImplementation") == "OpenMPI", str(spec.get("mpiImplementation")))
check("no retries: backoffLimit 0", spec["runPolicy"].get("backoffLimit") == 0)
check("launcher waits for the workers", spec.get("launcherCreationPolicy") == "WaitForWorkersReady",
      str(spec.get("launcherCreationPolicy")))


def containers(replica):
    return replica["template"]["spec"]["containers"]


def guaranteed(container):
    """Kubernetes' Guaranteed class: cpu and memory limits set, and every request equal to its limit."""
    resources = container.get("resources", {})
    requests, limits = resources.get("requests", {}), resources.get("limits", {})
    if "cpu" not in limits or "memory" not in limits:
        return False
    return all(str(limits.get(k)) == str(v) for k, v in requests.items())


for name in ("Launcher", "Worker"):
    for container in containers(replicas[name]):
        check(f"{name} container {container['name']} is Guaranteed", guaranteed(container),
              str(container.get("resources")))

launcher = containers(replicas["Launcher"])[0]
worker = containers(replicas["Worker"])[0]
args = launcher["args"]
check("launcher runs mpirun-hostfile.sh", launcher["command"][0].endswith("/scripts/launch/mpirun-hostfile.sh"))
check("on the operator's hostfile", args[0] == "/etc/mpi/hostfile", args[0])
gpus_per_host = int(args[args.index("--gpus-per-host") + 1])
worker_gpus = int(worker["resources"]["requests"]["nvidia.com/gpu"])
check("one shape: slotsPerWorker, --gpus-per-host and the worker's GPUs",
      spec["slotsPerWorker"] == gpus_per_host == worker_gpus,
      f"{spec['slotsPerWorker']}, {gpus_per_host}, {worker_gpus}")

check("results claim is ReadWriteMany", "ReadWriteMany" in claim["spec"]["accessModes"])
check("results claim names a storage class", bool(claim["spec"].get("storageClassName")))
results_dir = args[args.index("--results-dir") + 1]
mounts = {m["name"]: m["mountPath"] for m in worker["volumeMounts"]}
volumes = {v["name"]: v for v in replicas["Worker"]["template"]["spec"]["volumes"]}
results_volumes = [n for n, v in volumes.items()
                   if v.get("persistentVolumeClaim", {}).get("claimName") == claim["metadata"]["name"]]
check("the claim is mounted where --results-dir points",
      len(results_volumes) == 1 and mounts.get(results_volumes[0]) == results_dir, f"{results_volumes}, {mounts}")

header = open(sys.argv[1]).read().split("apiVersion:")[0]
check("the documented status query does not take the last condition", "conditions[-1]" not in header)

sys.exit(1 if failures else 0)
